// stat --procs and top compute locality one way (policy/locality.ts on one pass of the sampler):
// on the same snapshot every frame of top shows, for each process, the MEMORY, REMOTE and
// LOCALITY stat --procs shows. A second frame once took a pass that found no CPU used and weighed
// the nodes the threads last ran on instead (spread-app: 0.49 and 47.5 MiB in stat, 0.50 and
// 46.3 MiB in top's second frame).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { runMain } from '../../helpers/cli.js';
import { FIXTURES } from './helpers.js';

type Row = { memory: string; remote: string; locality: string };

/** PID -> the MEMORY, REMOTE and LOCALITY columns of a process table. */
function rows(text: string): Map<number, Row> {
  const out = new Map<number, Row>();
  const re = /^\s*>?\s*(\d+)\s+\S+\s+([\d.]+ ?[KMGT]?i?B)\s+([\d.]+ ?[KMGT]?i?B)\s+([\d.]+|-)\s/gm;
  for (const m of text.matchAll(re)) out.set(Number(m[1]), { memory: m[2]!, remote: m[3]!, locality: m[4]! });
  return out;
}

for (const globals of [
  ['--example', 'lab-2node-procs'],
  ['--root', join(FIXTURES, 'four-node')],
]) {
  test(`${globals.join(' ')}: every frame of top shows what stat --procs shows`, async () => {
    const stat = await runMain([...globals, 'stat', '--procs']);
    assert.equal(stat.code, 0, stat.err);
    const want = rows(stat.out);
    assert.ok(want.size > 0, stat.out);
    const top = await runMain([...globals, 'top', '--iterations', '3', '--interval', '0.01']);
    assert.equal(top.code, 0, top.err);
    const frames = top.out.split(/^(?=numakit top )/m).filter((f) => f.trim() !== '');
    assert.equal(frames.length, 3);
    for (const [i, frame] of frames.entries()) {
      const got = rows(frame);
      for (const [pid, r] of want) assert.deepEqual(got.get(pid), r, `frame ${i + 1}, PID ${pid}`);
    }
  });
}

test("top's help says what RAN ON in parentheses means", async () => {
  const r = await runMain(['top', '--help']);
  assert.match(r.out, /RAN ON:.*\n?.*in parentheses/);
});
