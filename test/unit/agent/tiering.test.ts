// Memory tiering: kernel.numa_balancing's tiering mode stays on while the agent runs (only the
// normal mode is switched off), and memory on memory-only nodes is never pulled back unless
// --promote (and then not when the kernel promotes).
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openSystem } from '../../../src/actuate/system.js';
import { DEFAULT_AGENT } from '../../../src/agent/config.js';
import { runAgent } from '../../../src/agent/run.js';
import { balancingWhileRunning } from '../../../src/policy/agent/balancing.js';
import { decideOne } from '../../../src/policy/agent/decide.js';
import type { Decision } from '../../../src/policy/agent/types.js';
import { nodes, opts, proc } from './build.js';
import { busy, fakeClock, FakeMachine } from './tree.js';

describe('kernel.numa_balancing while the agent runs', () => {
  const cases: [number | null, 'off' | 'keep', number | null, boolean][] = [
    [1, 'off', 0, false],
    [0, 'off', null, false],
    [2, 'off', null, true],
    [3, 'off', 2, true],
    [3, 'keep', null, true],
    [1, 'keep', null, false],
    [null, 'off', null, false],
  ];
  for (const [now, mode, write, tiering] of cases) {
    it(`${now} with --numa-balancing ${mode}: ${write === null ? 'left' : `-> ${write}`}${tiering ? ', tiering left to the kernel' : ''}`, () => {
      assert.deepEqual(balancingWhileRunning(now, mode), { write, tiering });
    });
  }

  it("3 (normal + tiering): the agent runs with 2, says tiering is the kernel's, and puts 3 back", async () => {
    const m = new FakeMachine(3);
    const stateDir = mkdtempSync(join(tmpdir(), 'numakit-agent-state-'));
    const lines: string[] = [];
    const knob = () => readFileSync(join(m.dir, 'proc/sys/kernel/numa_balancing'), 'utf8').trim();
    try {
      m.add(busy(200, 'spin', 40, 1, 1));
      const signals = new EventEmitter();
      let during = '';
      const code = await runAgent(
        { ...DEFAULT_AGENT, stateDir, intervalMs: 20, promote: true },
        {
          root: m.root,
          sys: openSystem(m.root, { isRoot: true }),
          ops: m.ops,
          log: (l) => void lines.push(l),
          signals,
          pageSize: 4096,
          selfPid: 99999,
          clock: fakeClock(),
          onReady: () => {
            during = knob();
            signals.emit('SIGTERM');
          },
        },
      );
      assert.equal(code, 0);
      assert.equal(during, '2');
      assert.equal(knob(), '3');
      assert.match(
        lines.join('\n'),
        /kernel.numa_balancing 3 -> 2 while the agent runs\n.*memory tiering on \(2\): promotion from memory-only nodes is left to the kernel \(--promote does nothing\)/,
      );
    } finally {
      m.cleanup();
      rmSync(stateDir, { recursive: true, force: true });
    }
  });
});

describe('memory on memory-only nodes', () => {
  // Node 2 is memory-only (CXL); the process runs on node 0 with half its memory demoted to node 2
  // and the rest on node 1.
  const machine = () =>
    nodes(3, {
      cpusPer: 2,
      memoryOnly: [2],
      distances: [
        [10, 21, 30],
        [21, 10, 30],
        [30, 30, 10],
      ],
    });
  const p = () => proc({ mem: { 1: 200, 2: 200 }, cpu: { 0: 1 }, cpusPermitted: [0, 1, 2, 3] });
  const placement = (d: Decision) => (d.kind === 'move' ? d.placement : assert.fail(JSON.stringify(d)));

  it("stays where tiering put it: only node 1's memory moves", () => {
    const pl = placement(decideOne(p(), machine(), opts()));
    assert.ok(!pl.moveFrom.includes(2), `moves from ${pl.moveFrom}`);
  });

  it('--promote: it is pulled back to the CPU node too', () => {
    const pl = placement(decideOne(p(), machine(), opts({ promote: true })));
    assert.ok(pl.moveFrom.includes(2), `moves from ${pl.moveFrom}`);
    assert.equal(pl.localityAfter, 1);
  });
});
