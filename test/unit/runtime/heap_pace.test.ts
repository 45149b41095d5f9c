// The agent's paced garbage collection (issue 28): what a pass promotes and drops is collected
// once the heap has grown past its floor, not left to V8's allocation limit tens of MiB above it.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import { openSystem } from '../../../src/actuate/system.js';
import { DEFAULT_AGENT } from '../../../src/agent/config.js';
import { HEAP_PACE, HeapPacer, oldBytesUsed, shouldCollect, v8FullGc } from '../../../src/runtime/heap_pace.js';
import { runAgent } from '../../../src/agent/run.js';
import { busy, eachWithFakeMachine, fakeClock, type FakeMachine } from '../agent/tree.js';

const MiB = 2 ** 20;

describe('shouldCollect', () => {
  const o = { growBytes: 2 * MiB, growShare: 0.25, minGapMs: 30_000 };
  const cases: [string, { floor: number; lastMs: number | null }, number, number, boolean][] = [
    ['under the growth', { floor: 8 * MiB, lastMs: null }, 9.9 * MiB, 0, false],
    ['past max(2 MiB, a quarter of 8 MiB)', { floor: 8 * MiB, lastMs: null }, 10.1 * MiB, 0, true],
    ['a large heap: a quarter of 40 MiB, not 2 MiB', { floor: 40 * MiB, lastMs: null }, 49 * MiB, 0, false],
    ['a large heap past its quarter', { floor: 40 * MiB, lastMs: null }, 51 * MiB, 0, true],
    ['within 30 s of the last collection', { floor: 8 * MiB, lastMs: 100_000 }, 20 * MiB, 129_999, false],
    ['30 s after it', { floor: 8 * MiB, lastMs: 100_000 }, 20 * MiB, 130_000, true],
  ];
  for (const [name, s, used, now, want] of cases) it(name, () => assert.equal(shouldCollect(s, used, now, o), want));
});

describe('HeapPacer', () => {
  it('measures growth from the lowest reading since its last collection, then from what the collection left', () => {
    const readings = [10, 8, 9.9, 10.1, 7, 9, 9.6, 12].map((x) => x * MiB);
    let gcs = 0;
    const p = new HeapPacer(
      () => void gcs++,
      () => readings.shift()!,
      { ...HEAP_PACE, minGapMs: 0 },
    );
    const got = [0, 1, 2].map((t) => p.afterPass(t)); // 10, 8, 9.9: floor 8, growth 1.9
    assert.deepEqual(got, [false, false, false]);
    assert.equal(p.afterPass(3), true, '10.1 is 2.1 past the floor 8'); // reads 10.1, then 7 after the collection
    assert.equal(p.afterPass(4), false, '9 is 2 past 7'); // 9
    assert.equal(p.afterPass(5), true, '9.6 past 7 by 2.6'); // 9.6, then 12 after it
    assert.equal(gcs, 2);
  });

  it('under churn in V8, the heap outside the young generation stays within its bound of the floor', () => {
    // Each pass keeps 1,000 objects for 30 passes (through scavenges: promoted) and makes 1 MB of
    // young garbage: about 50 KB a pass dies in the old generation, 20 MB over 400 passes.
    const pacer = new HeapPacer(v8FullGc());
    const ring: object[][] = [];
    let sink = 0;
    let floor = Infinity;
    let worst = 0;
    for (let pass = 0; pass < 400; pass++) {
      ring.push(Array.from({ length: 1000 }, (_, k) => ({ k, pass, s: `p${pass}-${k}` })));
      if (ring.length > 30) ring.shift();
      for (let i = 0; i < 100; i++) sink += new Array(1250).fill(pass).length;
      pacer.afterPass(pass * 2000);
      const used = oldBytesUsed();
      floor = Math.min(floor, used);
      worst = Math.max(worst, used - floor);
    }
    // Growth past the floor before a collection, plus what 15 passes (30 s) promote, plus slack (it
    // grew 3.8 MiB past a floor of 8.6 here; 24.8 MiB without the collections).
    const bound = Math.max(HEAP_PACE.growBytes, floor * HEAP_PACE.growShare) + 15 * 60_000 + 4 * MiB;
    assert.ok(sink > 0);
    assert.ok(pacer.collections >= 1, 'it collected');
    assert.ok(
      worst <= bound,
      `grew ${(worst / MiB).toFixed(1)} MiB past the floor ${(floor / MiB).toFixed(1)} (bound ${(bound / MiB).toFixed(1)})`,
    );
  });
});

let m: FakeMachine;
let stateDir: string;
eachWithFakeMachine((machine, dir) => {
  m = machine;
  stateDir = dir;
});

describe('runAgent paces the heap', () => {
  it('after every pass, the baseline included, at the pass clock', async () => {
    m.add(busy(200, 'spin', 64, 1, 0));
    const signals = new EventEmitter();
    let t = 0;
    let passes = 0;
    const at: number[] = [];
    await runAgent(
      { ...DEFAULT_AGENT, stateDir, intervalMs: 20, advise: true },
      {
        root: m.root,
        sys: openSystem(m.root, { isRoot: true }),
        ops: m.ops,
        log: () => undefined,
        signals,
        pageSize: 4096,
        now: () => t,
        selfPid: 99999,
        clock: fakeClock(),
        heap: { afterPass: (now) => void at.push(now) },
        sleep: async (ms) => {
          t += ms;
          m.tick(ms / 1000);
          if (++passes === 3) signals.emit('SIGTERM');
        },
      },
    );
    assert.deepEqual(at, [0, 20, 40]);
  });
});
