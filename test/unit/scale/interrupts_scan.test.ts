// sysfs/irq.ts's scanner as serve reads /proc/interrupts at every scrape (issue 27): counts added
// up by group while scanning (InterruptsOptions.sumBy) give what the per-CPU counts add up to,
// whatever the padding, the blanks and where the reads split the lines; a bad count is still
// refused; a header seen before is not taken for another.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { SysfsParseError } from '../../../src/model/errors.js';
import { InterruptsScanner, parseInterrupts } from '../../../src/sysfs/irq.js';

setFlagsFromString('--expose-gc');

/** A deterministic generator (xorshift), so that a failure can be replayed. */
function rng(seed: number) {
  let x = seed;
  return (n: number) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
}

/** A /proc/interrupts of `cpus` columns: padded like the kernel's, or with other blanks. */
function interrupts(seed: number, cpus: number[]): string {
  const r = rng(seed);
  const gap = () => [' ', '  ', '\t', ' \t '][r(4)]!;
  const rows = [`  ${cpus.map((c) => `CPU${c}`.padStart(11)).join('')}`];
  for (let irq = 0; irq < 40; irq++) {
    const counts = cpus.map(() => (r(3) === 0 ? r(10 ** (1 + r(12))) : 0));
    const kernel = r(2) === 0;
    const cells = counts.map((v) => (kernel ? ` ${String(v).padStart(10)}` : `${gap()}${v}`)).join('');
    rows.push(`${String(irq).padStart(4)}:${cells}  IR-PCI-MSI ${irq}-edge  q${irq}`);
  }
  rows.push(`NMI:${cpus.map(() => '          1').join('')}   Non-maskable interrupts`);
  return `${rows.join('\n')}\n`;
}

/** The scanner fed `text` in pieces of the sizes `cut` gives. */
function scan(text: string, o: ConstructorParameters<typeof InterruptsScanner>[0], cut: () => number) {
  const s = new InterruptsScanner(o);
  const b = Buffer.from(text);
  const piece = Buffer.alloc(b.length + 8, 'x'); // stale bytes past each piece, as in a reused read buffer
  for (let at = 0; at < b.length; ) {
    const n = Math.min(b.length - at, Math.max(1, cut()));
    b.copy(piece, 0, at, at + n);
    s.push(piece, n);
    at += n;
  }
  return s.end();
}

describe('interrupts scan: counts summed by group (serve)', () => {
  const cpus = [0, 1, 2, 3, 5, 8, 9];
  // CPU -> group: 0-3 group 0, 5 group 1, 8 none (-1), 9 past the array (none).
  const groupOf = Int32Array.from([0, 0, 0, 0, -1, 1, -1, -1, -1]);
  for (let seed = 1; seed <= 12; seed++)
    it(`seed ${seed}: each row's sums are its counts added up by group, whatever the pieces`, () => {
      const text = interrupts(seed, cpus);
      const whole = parseInterrupts(text);
      const r = rng(seed * 7919);
      const sizes = [() => text.length, () => 1 + r(7), () => 1 + r(300), () => 4096];
      for (const cut of sizes) {
        const got = scan(text, { sumBy: { groupOf, groups: 2 } }, cut)!;
        assert.equal(got.lines.length, whole.lines.length);
        got.lines.forEach((l, i) => {
          const w = whole.lines[i]!;
          const want = [0, 0];
          for (const [cpu, v] of w.counts) {
            const g = Number(cpu) < groupOf.length ? groupOf[Number(cpu)]! : -1;
            if (g >= 0) want[g]! += v;
          }
          assert.deepEqual([l.irq, l.total, l.desc, [...l.sums!], l.counts], [w.irq, w.total, w.desc, want, new Map()]);
        });
        assert.deepEqual(scan(text, {}, cut), whole, 'per-CPU counts: the same in pieces as whole');
      }
    });

  it('only the rows asked for, and a bad count in one of them is an error naming its line', () => {
    const text = interrupts(3, cpus);
    const got = parseInterrupts(text, { irqs: new Set([7, 39]), sumBy: { groupOf, groups: 2 } });
    assert.deepEqual(
      got.lines.map((l) => l.irq),
      [7, 39],
    );
    const bad = text.replace(/^( {3}7:\s+\S+\s+)\S+/m, '$1x');
    assert.throws(
      () => parseInterrupts(bad, { irqs: new Set([7]), sumBy: { groupOf, groups: 2 } }),
      (e: unknown) => e instanceof SysfsParseError && /:9: interrupt count is not a number/.test(e.message),
    );
  });

  it('a count of 16 digits past 2^53 is refused, padded or not', () => {
    for (const cell of [' 9007199254740993', '          9007199254740993'])
      assert.throws(
        () => parseInterrupts(`   CPU0 CPU1\n 9:          1${cell}  chip\n`),
        /interrupt count is not a number/,
      );
  });

  it('a header seen before (the last one is kept) does not stand for another', () => {
    assert.deepEqual(
      parseInterrupts('   CPU0 CPU2\n 5: 1 2 x\n').lines[0]!.counts,
      new Map([
        [0, 1],
        [2, 2],
      ]),
    );
    assert.deepEqual(
      parseInterrupts('   CPU0 CPU3\n 5: 1 2 x\n').lines[0]!.counts,
      new Map([
        [0, 1],
        [3, 2],
      ]),
    );
    assert.deepEqual(parseInterrupts('   CPU0 CPU3\n 5: 1 2 x\n').cpus, [0, 3]);
  });
});

describe('interrupts scan: what doctor keeps of a large machine', () => {
  it('each row keeps its served CPUs, not a slot for every CPU id below them', () => {
    // 512 queue IRQs of a 1,024-CPU machine, each served by one CPU: a row keyed by CPU id in an
    // object held an array of holes up to its CPU (megabytes in all); a Map holds one entry.
    const cpus = Array.from({ length: 1024 }, (_, i) => i);
    const header = `  ${cpus.map((c) => `CPU${c}`.padStart(11)).join('')}`;
    const rows = Array.from({ length: 512 }, (_, i) => {
      const served = (i * 7 + 600) % 1024;
      const cells = cpus.map((c) => String(c === served ? 1000 + i : 0).padStart(11)).join('');
      return `${String(100 + i).padStart(4)}:${cells}  IR-PCI-MSI ${i}-edge ens0f0-TxRx-${i}`;
    });
    const text = `${header}\n${rows.join('\n')}\n`;
    const gc = runInNewContext('gc') as () => void;
    gc();
    const before = process.memoryUsage().heapUsed;
    const kept = parseInterrupts(text);
    gc();
    const held = process.memoryUsage().heapUsed - before;
    assert.equal(kept.lines.length, 512);
    assert.ok(held < 512 * 1024, `the parsed rows hold ${(held / 2 ** 20).toFixed(1)} MiB of heap`);
    assert.deepEqual(kept.lines[3]!.counts, new Map([[621, 1003]]));
  });
});
