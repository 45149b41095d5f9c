// Plan's size options (--heap, --buffer-pool, --local-size) read sizes with the grammar of every
// other size flag (model/size.ts): one parser, not a copy of it with its own rules.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runMain } from '../../helpers/cli.js';

async function planFiles(...args: string[]): Promise<string> {
  const r = await runMain(['--example', 'spark-2s', 'plan', ...args, '--json']);
  assert.equal(r.code, 0, r.err);
  return r.out;
}

test('a byte count, a spaced unit and GiB give the plan of the same size as 16g', async () => {
  const base = await planFiles('jvm', '--heap', '16g', '--jar', '/opt/app.jar');
  for (const heap of [String(16 * 2 ** 30), '16 GiB', '16384M'])
    assert.equal(await planFiles('jvm', '--heap', heap, '--jar', '/opt/app.jar'), base, heap);
});

test('a size that is none, or 0, is refused in one line naming the option', async () => {
  for (const [heap, why] of [
    ['lots', /^numakit: --heap 'lots': expected a size such as 64M, 1G or a byte count\n$/],
    ['0g', /^numakit: --heap '0g': must be more than 0\n$/],
  ] as const) {
    const r = await runMain(['--example', 'spark-2s', 'plan', 'jvm', '--heap', heap, '--jar', '/opt/app.jar']);
    assert.equal(r.code, 2, heap);
    assert.match(r.err, why);
  }
  const r = await runMain(['--example', 'spark-2s', 'plan', 'mysql', '--buffer-pool', '1.5x']);
  assert.match(r.err, /^numakit: --buffer-pool '1\.5x': expected a size/);
});

test('src/ defines parseSize once (model/size.ts)', () => {
  const src = fileURLToPath(new URL('../../../src/', import.meta.url));
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
    );
  const defining = files(src).filter((f) => /function parseSize\b/.test(readFileSync(f, 'utf8')));
  assert.deepEqual(
    defining.map((f) => f.slice(src.length)),
    ['model/size.ts'],
  );
});
