// cleanText: CRLF as LF and trailing whitespace/NULs gone, in time linear in the text (it runs
// on every file read; a regex anchored at $ was quadratic in the padding of /proc/interrupts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { cleanText } from '../../../src/model/limits.js';

/** The definition, written the short way. */
const reference = (t: string): string => t.replace(/\r\n?/g, '\n').replace(/[\s\0]+$/, '');

describe('cleanText', () => {
  const cases: [string, string][] = [
    ['', ''],
    ['0-31\n', '0-31'],
    ['0-31\n\0', '0-31'],
    ['a\r\nb\r\n', 'a\nb'],
    ['a\rb\r', 'a\nb'],
    ['  leading kept\n \t\n', '  leading kept'],
    ['\n\n\0\0 ', ''],
    ['x\u00a0\u2028', 'x'],
  ];
  for (const [text, want] of cases)
    it(`${JSON.stringify(text)} -> ${JSON.stringify(want)}`, () => assert.equal(cleanText(text), want));

  it('agrees with the regex definition on generated text', () => {
    const ch = fc.constantFrom('a', '0', ' ', '\t', '\n', '\r', '\0', '\u00a0', ':');
    fc.assert(
      fc.property(
        fc.array(ch, { maxLength: 40 }).map((a) => a.join('')),
        (t) => cleanText(t) === reference(t),
      ),
      { seed: 15, numRuns: 2000 },
    );
  });

  it('agrees on a /proc/interrupts-like text (1000 rows of 64 padded columns)', () => {
    const text =
      Array.from({ length: 1000 }, (_, i) => `${i}:${'          7'.repeat(64)}  IR-PCI-MSI edge q${i}`).join('\n') +
      '\n';
    assert.equal(cleanText(text), reference(text));
  });
});
