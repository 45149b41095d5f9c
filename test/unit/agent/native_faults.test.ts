// The agent with each of its native calls failing with each errno, at the ThreadOps/native
// boundary: the failing op goes through the real src/native wrapper with the syscall made to
// fail (interceptLibc), so the agent sees the very NativeError it gets on a machine. Whatever
// fails: one log line naming the call and errno, the journal covers every affinity still
// changed (a restore from it gives every thread its first affinity back), and nothing is half
// done: a failed action puts back the threads it had bound.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { listChangeSets } from '../../../src/actuate/journal.js';
import { openSystem } from '../../../src/actuate/system.js';
import { DEFAULT_AGENT } from '../../../src/agent/config.js';
import { AgentJournal } from '../../../src/agent/journal.js';
import type { ThreadOps } from '../../../src/agent/ops.js';
import { AgentPass } from '../../../src/agent/pass.js';
import { restoreAgentSet } from '../../../src/agent/restore.js';
import * as native from '../../../src/native/index.js';
import type { FaultableCall } from '../../../src/native/libc.js';
import { FAULTS, injectNativeFaults } from '../../helpers/native_faults.js';
import { busy, eachWithFakeMachine, fakeClock, type FakeMachine } from './tree.js';

let m: FakeMachine;
let stateDir: string;
eachWithFakeMachine((machine, dir) => {
  m = machine;
  stateDir = dir;
});

type Op = 'getAffinity' | 'setAffinity' | 'movePages';
const SYSCALL: Record<Op, FaultableCall> = {
  getAffinity: 'sched_getaffinity',
  setAffinity: 'sched_setaffinity',
  movePages: 'move_pages',
};

/** m.ops, except that call number `nth` of `op` runs the real native wrapper with its syscall failing with `errno`. */
function faulting(op: Op, nth: number, errno: string): ThreadOps {
  let n = 0;
  const real = (fn: () => unknown) => {
    const f = injectNativeFaults({ fail: [{ call: SYSCALL[op], errno }], dry: true });
    try {
      return fn();
    } finally {
      f.restore();
    }
  };
  return {
    ...m.ops,
    getAffinity: (tid) =>
      op === 'getAffinity' && ++n === nth ? (real(() => native.getAffinity(tid)) as number[]) : m.ops.getAffinity(tid),
    setAffinity: (tid, cpus) =>
      op === 'setAffinity' && ++n === nth
        ? void real(() => native.setAffinity(tid, cpus))
        : m.ops.setAffinity(tid, cpus),
    movePages: (pid, count, pages, nodes, status) =>
      op === 'movePages' && ++n === nth
        ? (real(() => native.movePagesInto(pid, count, pages, nodes, status)) as number)
        : m.ops.movePages(pid, count, pages, nodes, status),
  };
}

const ALL = [0, 1, 2, 3];
const affinities = () => m.procs.get(200)!.threads.map((t) => t.cpus.join(','));

/** One misplaced 2-thread process, a pass that acts on it with `ops`; what happened. */
async function actWith(ops: ThreadOps) {
  m.add(
    busy(200, 'spin', 400, 1, 0, {
      threads: [
        { tid: 200, ticks: 0, cpu: 0, start: 7, cpus: ALL },
        { tid: 201, ticks: 0, cpu: 0, start: 8, cpus: ALL },
      ],
    }),
  );
  const lines: string[] = [];
  const journal = new AgentJournal(stateDir, new Date(0));
  const pass = new AgentPass(
    { ...DEFAULT_AGENT, stateDir },
    { root: m.root, ops, journal, log: (l) => void lines.push(l), selfPid: 99999, pageSize: 4096, clock: fakeClock() },
  );
  await pass.run(0);
  m.tick(5, [1]);
  await pass.run(5000);
  return { lines: lines.filter((l) => / pid 200 /.test(l)), journal };
}

/** The journal on disk covers every change: a restore from it gives both threads their first affinity. */
function assertJournalCovers(): void {
  const [cs] = listChangeSets(stateDir);
  restoreAgentSet(openSystem(m.root, { isRoot: true }), cs!, { stateDir, ops: m.ops });
  assert.deepEqual(affinities(), ['0,1,2,3', '0,1,2,3']);
}

describe('agent: each native call failing with each errno', () => {
  // Which call fails: the 2nd getAffinity, the 2nd setAffinity (one thread already bound), the first move_pages (both bound).
  const cases: Array<[Op, number]> = [
    ['getAffinity', 2],
    ['setAffinity', 2],
    ['movePages', 1],
  ];
  for (const [op, nth] of cases) {
    for (const errno of FAULTS) {
      it(`${op} (${SYSCALL[op]}) #${nth}: ${errno}`, async () => {
        const { lines } = await actWith(faulting(op, nth, errno));
        assert.equal(lines.length, 1, lines.join('\n'));
        const pagesOn1 = m.procs.get(200)!.pages[1];
        if (errno === 'ESRCH' && op !== 'getAffinity') {
          // The kernel says the process (or the thread) is gone: logged as such, no failure.
          assert.match(
            lines[0]!,
            op === 'movePages'
              ? / gone pid 200 \(spin\): .*the process exited while migrating its pages/
              : / moved pid 200 /,
          );
        } else if (errno === 'ESRCH') {
          assert.match(
            lines[0]!,
            / (moved|partial) pid 200 /,
            'a thread that vanished between listing and reading is skipped',
          );
        } else {
          assert.match(
            lines[0]!,
            new RegExp(` failed pid 200 \\(spin\\): .*; failed: ${SYSCALL[op]} \\(.*\\): .* \\(${errno}\\)`),
          );
          // Nothing half done: the threads are as before the action, the memory did not move.
          assert.deepEqual(affinities(), ['0,1,2,3', '0,1,2,3'], lines[0]);
          assert.equal(pagesOn1, 400 * 256);
          if (op !== 'getAffinity')
            assert.match(
              lines[0]!,
              new RegExp(`; put back the affinity of ${op === 'setAffinity' ? 1 : 2} thread\\(s\\) it had set$`),
            );
        }
        assertJournalCovers();
      });
    }
  }

  it('a put-back that itself fails is said, and the journal still holds that thread', async () => {
    let calls = 0;
    const ops: ThreadOps = {
      ...m.ops,
      movePages: () => {
        throw Object.assign(new Error('move_pages (pid 200, 16 pages): Cannot allocate memory (ENOMEM)'), {
          code: 'ENOMEM',
        });
      },
      setAffinity: (tid, cpus) => {
        if (++calls === 3)
          throw Object.assign(
            new Error(`sched_setaffinity (pid ${tid}, cpus ${cpus.join(',')}): Operation not permitted (EPERM)`),
            { code: 'EPERM' },
          );
        m.ops.setAffinity(tid, cpus);
      },
    };
    const { lines, journal } = await actWith(ops);
    assert.match(
      lines[0]!,
      /; put back the affinity of 1 thread\(s\) it had set; could NOT put back 1: thread 200 of pid 200: sched_setaffinity .*\(EPERM\)$/,
    );
    assert.deepEqual(
      journal.changeSet.threads!.map((t) => [t.tid, t.state]),
      [
        [200, 'written'],
        [201, 'restored'],
      ],
    );
    assertJournalCovers();
  });
});
