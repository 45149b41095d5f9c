// The paced mover through the agent's ThreadOps, on the fake machine, with injected faults:
// the process exiting mid-move (ESRCH), pages the kernel will not move (EBUSY), tail pages of
// transparent huge pages (EBUSY while their head moves), a target node out of memory (ENOMEM),
// pages that must stay (a node that is not a source), a stop request, and the budgets.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { movePaced, type MoveDeps } from '../../../src/agent/mover.js';
import { MAX_BATCH_BYTES } from '../../../src/policy/agent/pace.js';
import { busy, fakeClock, FakeMachine } from './tree.js';

const MiB = 1048576;
let m: FakeMachine;
beforeEach(() => {
  m = new FakeMachine();
});
afterEach(() => m.cleanup());

function deps(o: Partial<MoveDeps> = {}): MoveDeps & { clock: ReturnType<typeof fakeClock>; seen: number[] } {
  const seen: number[] = [];
  const clock = fakeClock();
  return {
    ops: m.ops,
    clock,
    pace: { mbps: 0, cpuShare: 1 },
    signal: new AbortController().signal,
    progress: (b) => void seen.push(b),
    seen,
    ...o,
  } as MoveDeps & { clock: ReturnType<typeof fakeClock>; seen: number[] };
}

describe('paced mover', () => {
  it('moves every page of the source node to the target in bounded batches, reporting progress as it goes', async () => {
    m.add(busy(200, 'spin', 64, 1, 0));
    const d = deps();
    const r = await movePaced(200, [1], [0], d);
    assert.deepEqual(
      [r.end, r.movedBytes, r.movedPages, r.notMoved, r.plannedBytes],
      ['done', 64 * MiB, 64 * 256, 0, 64 * MiB],
    );
    assert.deepEqual(m.procs.get(200)!.pages, { 0: 64 * 256 });
    assert.ok(r.batches >= 64 / (MAX_BATCH_BYTES / MiB), `${r.batches} batches`);
    assert.ok(
      d.seen.length === r.batches && d.seen.every((b, i) => i === 0 || b >= d.seen[i - 1]!),
      'progress after each batch, never going back',
    );
  });

  it('ESRCH mid-move: the process exited; what moved before is counted, nothing throws', async () => {
    m.add(busy(200, 'spin', 64, 1, 0));
    m.exitAfterCalls.set(200, 3);
    const r = await movePaced(200, [1], [0], deps());
    assert.equal(r.end, 'gone');
    assert.ok(r.movedBytes > 0 && r.movedBytes < 64 * MiB, String(r.movedBytes));
  });

  it('EINVAL mid-move from a process whose memory is gone (exiting: its mm released before it is reaped): gone, not failed', async () => {
    m.add(busy(200, 'spin', 64, 1, 0));
    let calls = 0;
    let exiting = false;
    const einval = () => Object.assign(new Error('move_pages: Invalid argument (EINVAL)'), { code: 'EINVAL' });
    const ops = {
      ...m.ops,
      movePages: (...a: Parameters<typeof m.ops.movePages>) => {
        if (++calls > 3) {
          exiting = true;
          throw einval();
        }
        return m.ops.movePages(...a);
      },
      anonRanges: (pid: number) => (exiting ? [] : m.ops.anonRanges(pid)),
    };
    const r = await movePaced(200, [1], [0], deps({ ops }));
    assert.equal(r.end, 'gone');
    assert.ok(r.movedBytes > 0 && r.movedBytes < 64 * MiB, String(r.movedBytes));
    // The same errno while the process still has its memory is a failed move, named.
    calls = 0;
    const still = { ...ops, anonRanges: (pid: number) => m.ops.anonRanges(pid) };
    m.add(busy(201, 'spin', 64, 1, 0));
    const f = await movePaced(201, [1], [0], deps({ ops: still }));
    assert.equal(f.end, 'failed');
  });

  it('EBUSY pages are tried once more at the end; those still busy are counted as not moved', async () => {
    m.add(busy(200, 'spin', 16, 1, 0));
    for (const i of [5, 6, 4000]) m.busyPages.add(i);
    const r = await movePaced(200, [1], [0], deps());
    assert.deepEqual([r.end, r.notMoved, r.movedPages], ['done', 3, 16 * 256 - 3]);
    assert.deepEqual(m.procs.get(200)!.pages, { 0: 16 * 256 - 3, 1: 3 });
  });

  it('a page busy only for a moment moves on the second try', async () => {
    m.add(busy(200, 'spin', 16, 1, 0));
    m.busyPages.add(7);
    const d = deps({ progress: () => void m.busyPages.clear() });
    const r = await movePaced(200, [1], [0], d);
    assert.deepEqual([r.end, r.notMoved, r.movedPages], ['done', 0, 16 * 256]);
  });

  it('transparent huge pages: tail pages answer EBUSY while their head moves them; asked again, they count as moved', async () => {
    m.add(busy(200, 'spin', 16, 1, 0, { thp: true }));
    const r = await movePaced(200, [1], [0], deps());
    assert.deepEqual([r.end, r.notMoved, r.movedPages], ['done', 0, 16 * 256]);
  });

  it('ENOMEM on the target node: the move stops there, with what fitted moved', async () => {
    m.add(busy(200, 'spin', 64, 1, 0));
    m.room.set(0, 1000);
    const r = await movePaced(200, [1], [0], deps());
    assert.equal(r.end, 'full');
    assert.equal(r.movedPages, 1000);
    assert.deepEqual(m.procs.get(200)!.pages, { 0: 1000, 1: 64 * 256 - 1000 });
  });

  it('pages on nodes that are not sources (a memory-only node) are never moved', async () => {
    m.add(busy(200, 'spin', 0, 1, 0, { pages: { 1: 2048, 3: 2048 } }));
    const r = await movePaced(200, [1], [0], deps());
    assert.equal(r.end, 'done');
    assert.deepEqual(m.procs.get(200)!.pages, { 0: 2048, 3: 2048 });
  });

  it('two source nodes going to two targets: each page to the target of its node', async () => {
    m.add(busy(200, 'spin', 0, 1, 0, { pages: { 2: 1000, 3: 1000 } }));
    const r = await movePaced(200, [2, 3], [0, 1], deps());
    assert.equal(r.end, 'done');
    assert.deepEqual(m.procs.get(200)!.pages, { 0: 1000, 1: 1000 });
  });

  it('two sources to two targets, a mapping with pages on the second source only: they go to its target, not the first one', async () => {
    m.add(busy(200, 'spin', 0, 1, 0, { pages: { 3: 1000 } }));
    const r = await movePaced(200, [2, 3], [0, 1], deps());
    assert.equal(r.end, 'done');
    assert.deepEqual(m.procs.get(200)!.pages, { 1: 1000 });
  });

  it('a sparse mapping is walked only until its pages on the source are found', async () => {
    m.add(busy(200, 'spin', 1, 1, 0, { untouched: 256 * 1024 }));
    const r = await movePaced(200, [1], [0], deps());
    assert.deepEqual([r.end, r.movedPages], ['done', 256]);
    assert.ok(
      r.batches <= 3,
      `${r.batches} batches: the walk stops once it found the 256 pages, not at the end of 1 GiB`,
    );
  });

  it('a stop request ends the move after the batch in progress', async () => {
    m.add(busy(200, 'spin', 256, 1, 0));
    const stop = new AbortController();
    let batches = 0;
    const r = await movePaced(
      200,
      [1],
      [0],
      deps({ signal: stop.signal, progress: () => void (++batches === 2 && stop.abort()) }),
    );
    assert.equal(r.end, 'stopped');
    assert.equal(r.batches, 2);
    assert.ok(r.movedBytes > 0 && r.movedBytes < 256 * MiB);
  });

  it('the process gone before the move starts', async () => {
    const r = await movePaced(4242, [1], [0], deps());
    assert.deepEqual([r.end, r.movedBytes, r.batches], ['gone', 0, 0]);
  });

  it('no WebAssembly (node --jitless): the move fails with the reason before any page, nothing thrown', () => {
    const r = spawnSync(
      process.execPath,
      ['--jitless', '--import', 'tsx', fileURLToPath(new URL('jitless_move.ts', import.meta.url))],
      { encoding: 'utf8' },
    );
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { end: string; message: string; batches: number; movedBytes: number };
    assert.deepEqual([out.end, out.batches, out.movedBytes], ['failed', 0, 0]);
    assert.match(out.message, /WebAssembly/);
  });

  it('EPERM from move_pages: failed, with the message', async () => {
    m.add(busy(200, 'spin', 4, 1, 0));
    m.failNext.movePages = 'EPERM';
    const r = await movePaced(200, [1], [0], deps());
    assert.equal(r.end, 'failed');
    assert.equal(r.code, 'EPERM');
    assert.match(r.message!, /EPERM/);
  });

  it('--max-migrate-mbps: the move takes at least bytes / rate, in pauses between batches', async () => {
    m.add(busy(200, 'spin', 20, 1, 0));
    const d = deps({ pace: { mbps: 10, cpuShare: 1 } });
    const r = await movePaced(200, [1], [0], d);
    assert.equal(r.end, 'done');
    const needMs = (20 * MiB) / (10 * 1e3);
    assert.ok(
      d.clock.elapsed >= needMs - 1 && d.clock.elapsed <= needMs + 100,
      `${d.clock.elapsed} ms for 20 MiB at 10 MB/s`,
    );
    assert.ok(r.batches >= (20 * MiB) / (10 * 1e6 * 0.05), `batches of at most 50 ms of budget: ${r.batches}`);
  });

  it('--max-migrate-cpu: with 10 ms of CPU a batch and a 25% share, each batch is followed by a pause of 3 times its CPU', async () => {
    m.add(busy(200, 'spin', 8, 1, 0));
    const clock = fakeClock({ cpuPerCall: 10 });
    const d = deps({ clock, pace: { mbps: 0, cpuShare: 0.25 } });
    const r = await movePaced(200, [1], [0], d);
    assert.equal(r.end, 'done');
    // cpuMs is read once at the start and once per pause: after k batches, 10k ms of CPU.
    const cpu = 10 * clock.sleeps.length;
    assert.ok(clock.elapsed >= cpu / 0.25 - 10 * 4, `${clock.elapsed} ms elapsed for ${cpu} ms of CPU`);
  });
});
