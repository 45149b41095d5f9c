// A process the watch wakes the agent for while it is still bound to CPUs by its user (started
// under taskset or numactl, as a program that sets itself up bound and then drops the binding):
// the watch follows its affinity, and once that changes the agent is woken again, instead of the
// process waiting for a pass up to --max-interval later.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openSystem } from '../../../src/actuate/system.js';
import { DEFAULT_AGENT } from '../../../src/agent/config.js';
import type { EventBatch } from '../../../src/agent/proc_events.js';
import { runAgent } from '../../../src/agent/run.js';
import { WATCH_PINNED_TICKS } from '../../../src/policy/agent/watch.js';
import { busy, eachWithFakeMachine, fakeClock, type FakeMachine } from './tree.js';

let m: FakeMachine;
let stateDir: string;
eachWithFakeMachine((machine, d) => {
  m = machine;
  stateDir = d;
});

/**
 * The agent (advise) on the fake machine with fake process events and a fake clock: at 3 s a busy
 * 400 MiB process starts on CPU 0 (node 0) with its memory on node 1, bound to CPU 0; at
 * `unpinAt` it drops that binding. Resolves to when (ms) the agent first said it would move it.
 */
async function firstMove(unpinAt: number): Promise<number | null> {
  const signals = new EventEmitter();
  const lines: string[] = [];
  let t = 0;
  let movedAt: number | null = null;
  let started = false;
  const advance = (ms: number) => {
    m.tick(ms / 1000, [1]);
    t += ms;
    writeFileSync(join(m.dir, 'proc/uptime'), `${(100 + t / 1000).toFixed(2)} 0.00\n`);
  };
  const step = (): EventBatch => {
    if (!started && t >= 3000) {
      started = true;
      m.add(busy(200, 'app', 400, 1, 0, { threads: [{ tid: 200, ticks: 0, cpu: 0, start: 9000, cpus: [0] }] }));
      return [200];
    }
    if (t >= unpinAt && m.procs.get(200)?.threads[0]?.cpus.length === 1) {
      m.procs.get(200)!.threads[0]!.cpus = [0, 1, 2, 3];
      m.write();
    }
    return null;
  };
  const done = runAgent(
    { ...DEFAULT_AGENT, stateDir, advise: true },
    {
      root: m.root,
      sys: openSystem(m.root, { isRoot: true }),
      ops: m.ops,
      log: (l) => {
        lines.push(l);
        if (movedAt === null && /would move pid 200/.test(l)) movedAt = t;
      },
      signals,
      pageSize: 4096,
      selfPid: 99999,
      clock: fakeClock(),
      now: () => t,
      events: () => ({
        wait: async (ms: number) => {
          // Time passes in steps of at most 1 s; a fork comes as a batch a --watch after it.
          for (let left = ms; left > 0; ) {
            const d = Math.min(left, 1000);
            advance(d);
            left -= d;
            const b = step();
            if (b !== null) return b;
          }
          if (t > 40_000) signals.emit('SIGTERM');
          return null;
        },
        collectFor: () => {},
        close: () => {},
      }),
      sleep: async () => assert.fail('no plain sleep with the watch'),
    },
  );
  assert.equal(await done, 0, lines.join('\n'));
  return movedAt;
}

describe('a new process still bound to CPUs when the watch wakes the agent for it', () => {
  it('its affinity is followed: when it drops the binding the agent is woken and judges it within about 2 s', async () => {
    const at = await firstMove(10_000);
    assert.ok(at !== null, 'never moved');
    assert.ok(at - 10_000 <= 3000, `first decision ${at - 10_000} ms after the binding was dropped`);
  });

  it('a binding kept past the follow is left to the passes', async () => {
    const unpin = 3000 + (WATCH_PINNED_TICKS + 3) * 1000;
    const at = await firstMove(unpin);
    assert.ok(at !== null && at > unpin, `moved at ${at}`);
  });
});
