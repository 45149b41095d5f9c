// `numakit stat --numastat` against what the real numastat 2.0.16 printed for the same fixture
// machine and options (test/golden/stat/reference/, recorded by
// test/fixtures/stat/numastat_reference.sh): byte for byte.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { GOLDEN, runStat } from './helpers.js';

const CASES: [fixture: string, name: string, width: string, args: string][] = [
  ['four-node', 'compat', '', ''],
  ['four-node', 'n', '', '-n'],
  ['four-node', 'm', '', '-m'],
  ['four-node', 'n-c', '', '-c -n'],
  ['four-node', 'm-c', '', '-c -m'],
  ['four-node', 'm-z', '', '-z -m'],
  ['four-node', 'n-s', '', '-n -s'],
  ['four-node', 'm-s1', '', '-m -s1'],
  ['four-node', 'n-w80', '80', '-n'],
  ['four-node', 'm-w80', '80', '-m'],
  ['four-node', 'p1201', '', '-p 1201'],
  ['four-node', 'p1302', '', '-p 1302'],
  ['four-node', 'p1302-c', '', '-c -p 1302'],
  ['four-node', 'p1302-z', '', '-z -p 1302'],
  ['four-node', 'p1100', '', '-p 1100'],
  ['four-node', 'p1504', '', '-p 1504'],
  ['four-node', 'multi', '', '-p 1201 -p 1302 -p 1100'],
  ['four-node', 'multi-s', '', '-s -p 1201 -p 1302'],
  ['four-node', 'multi-v', '', '-v -p 1201 -p 1302'],
  ['four-node', 'multi-vs0', '', '-v -s0 -p 1201 -p 1302'],
  ['four-node', 'multi-w80', '80', '-p 1201 -p 1302'],
  ['four-node', 'pattern', '', '-p postgres'],
  ['four-node', 'mnp', '', '-m -n -p 1201'],
  ['sparse-node', 'compat', '', ''],
  ['sparse-node', 'n', '', '-n'],
  ['sparse-node', 'n-s1', '', '-n -s1'],
  ['sparse-node', 'n-s0', '', '-n -s0'],
  ['sparse-node', 'm-c', '', '-c -m'],
  ['sparse-node', 'n-z', '', '-z -n'],
];

for (const [fixture, name, width, args] of CASES) {
  test(`--numastat ${args || '(no option)'} on ${fixture} equals numastat 2.0.16's output${width ? ` at width ${width}` : ''}`, async () => {
    const prefix = fixture === 'four-node' ? 'four' : 'sparse';
    const expected = readFileSync(join(GOLDEN, 'reference', `${prefix}-${name}.txt`), 'utf8');
    const env: Record<string, string> = width ? { NUMASTAT_WIDTH: width } : {};
    const r = await runStat(fixture, ['--numastat', ...args.split(' ').filter((a) => a !== '')], env);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, expected);
  });
}
