// policy/locality.ts: the locality formula, remote bytes and ranking, as a case table.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { NodeMemory, ProcessMemory } from '../../../src/model/stat.js';
import {
  inRankOrder,
  locality,
  rankByRemote,
  remoteBytes,
  runNodes,
  type LocalityInput,
} from '../../../src/policy/locality.js';
import { rng } from '../../fixtures/scale_capture.js';

function mem(perNode: Record<string, number>): ProcessMemory {
  const nodes: Record<string, NodeMemory> = {};
  let total = 0;
  for (const [n, b] of Object.entries(perNode)) {
    nodes[n] = { hugeBytes: 0, heapBytes: 0, stackBytes: 0, privateBytes: b, totalBytes: b };
    total += b;
  }
  return { kind: 'ok', nodes, totalBytes: total, policies: {} };
}

let nextPid = 100;
const p = (
  m: Record<string, number>,
  cpu: Record<string, number>,
  last: number[] = [],
  pid = nextPid++,
): LocalityInput & { pid: number } => ({
  pid,
  memory: mem(m),
  cpuNodes: cpu,
  lastNodes: last,
});

const CASES: [string, LocalityInput, number | null, number][] = [
  ['all memory where it runs', p({ '0': 100 }, { '0': 2 }), 1, 0],
  ['cpunodebind=0 membind=1: all memory remote', p({ '1': 100 }, { '0': 2 }), 0, 100],
  // REMOTE is weighted like locality (total x (1 - locality)): a process split between nodes
  // never shows 0 B remote next to a locality of 0.5.
  ['half the time on each node, memory on one', p({ '0': 100 }, { '0': 1, '1': 1 }), 0.5, 50],
  ['split half and half: time and memory', p({ '0': 50, '1': 50 }, { '0': 1, '1': 1 }), 0.5, 50],
  ['time 3:1, memory 1:3', p({ '0': 25, '1': 75 }, { '0': 3, '1': 1 }), 0.75 * 0.25 + 0.25 * 0.75, 63],
  ['idle in the window: weighted by where its threads last ran', p({ '0': 30, '1': 70 }, {}, [1]), 0.7, 30],
  ['no memory: no locality', p({}, { '0': 1 }), null, 0],
  ['no CPU node known: no locality', p({ '0': 10 }, {}, []), null, 0],
];

for (const [name, input, want, remote] of CASES) {
  test(`locality: ${name}`, () => {
    const l = locality(input);
    if (want === null) assert.equal(l, null);
    else assert.ok(l !== null && Math.abs(l - want) < 1e-12, `${l} != ${want}`);
    assert.equal(remoteBytes(input), remote);
  });
}

test('no-permission memory has no locality and no remote bytes', () => {
  const x: LocalityInput = { memory: { kind: 'no-permission' }, cpuNodes: { '0': 1 }, lastNodes: [0] };
  assert.equal(locality(x), null);
  assert.equal(remoteBytes(x), 0);
});

test('runNodes ignores nodes with zero CPU time', () => {
  assert.deepEqual(runNodes(p({ '0': 1 }, { '0': 0, '2': 1 })), [2]);
});

test('rankByRemote puts the most remote memory first', () => {
  const a = p({ '0': 10, '1': 5 }, { '0': 1 });
  const b = p({ '1': 50 }, { '0': 1 });
  const c = p({ '0': 99 }, { '0': 1 });
  assert.deepEqual(
    rankByRemote([a, b, c]).map((r) => r.sample),
    [b, a, c],
  );
});

test('rankByRemote breaks ties by total memory', () => {
  const small = p({ '0': 10 }, { '0': 1 });
  const big = p({ '0': 500 }, { '0': 1 });
  assert.deepEqual(
    rankByRemote([small, big]).map((r) => r.sample),
    [big, small],
  );
});

test('rankByRemote breaks a tie of remote and total memory by pid, lowest first (one order: stat, top, serve)', () => {
  const later = p({ '0': 10 }, { '0': 1 }, [], 7);
  const earlier = p({ '0': 10 }, { '0': 1 }, [], 3);
  assert.deepEqual(
    rankByRemote([later, earlier]).map((r) => r.sample.pid),
    [3, 7],
  );
});

type Sample = LocalityInput & { pid: number };

/**
 * Samples without CPU nodes (what a sampler leaves to its thread stage) and where each ran: a
 * few large, many small, ties of total memory, some fully local, some without permission.
 */
function mix(seed: number, n: number): { bare: Sample[]; ran: Map<number, Record<string, number>> } {
  const r = rng(seed);
  const bare: Sample[] = [];
  const ran = new Map<number, Record<string, number>>();
  for (let i = 0; i < n; i++) {
    const pid = 1000 + i;
    const big = r(10) === 0 ? 1000 : 1;
    const m = { [String(r(4))]: big * (1 + r(8)), [String(r(4))]: big * r(8) };
    const memory = r(20) === 0 ? ({ kind: 'no-permission' } as const) : mem(m);
    bare.push({ pid, memory, cpuNodes: {}, lastNodes: [] });
    ran.set(pid, r(3) === 0 ? { [Object.keys(m)[0]!]: 1 } : { [String(r(4))]: 1 + r(3), [String(r(4))]: r(3) });
  }
  return { bare, ran };
}

test('inRankOrder: the order rankByRemote gives, completing only the samples that can still rank first', () => {
  for (const seed of [7, 99, 2024]) {
    const { bare, ran } = mix(seed, 400);
    const gone = new Set(bare.filter((_, i) => i % 37 === 5).map((s) => s.pid));
    const full = (s: Sample): Sample | null => (gone.has(s.pid) ? null : { ...s, cpuNodes: ran.get(s.pid)! });
    const eager = rankByRemote(bare.flatMap((s) => full(s) ?? []));
    const completed: Sample[] = [];
    const lazy = inRankOrder(bare, (s) => {
      completed.push(s);
      return full(s);
    });
    const first: typeof eager = [];
    for (const r of lazy) if (first.push(r) === 20) break;
    assert.deepEqual(first, eager.slice(0, 20), `seed ${seed}: the first 20`);
    // Remote memory is at most memory: a sample with less memory than the 20th's remote cannot rank before it.
    const bar = first.at(-1)!.remoteBytes;
    for (const s of completed)
      assert.ok(s.memory.kind === 'ok' && s.memory.totalBytes >= bar, `seed ${seed}: pid ${s.pid} completed`);
    assert.ok(completed.length < bare.length / 2, `seed ${seed}: ${completed.length} of ${bare.length} completed`);
    assert.deepEqual([...inRankOrder(bare, full)], eager, `seed ${seed}: all of them`);
  }
});

test("inRankOrder: memory ties and samples without permission keep rankByRemote's order", () => {
  const same = [3, 1, 2].map((pid) => p({ '0': 10 }, {}, [], pid));
  const refused: Sample[] = [5, 4].map((pid) => ({
    pid,
    memory: { kind: 'no-permission' },
    cpuNodes: {},
    lastNodes: [],
  }));
  const ran = (s: Sample): Sample => ({ ...s, cpuNodes: { [String(s.pid % 2)]: 1 } });
  const all = [...same, ...refused];
  assert.deepEqual(
    [...inRankOrder(all, ran)].map((r) => r.sample.pid),
    rankByRemote(all.map(ran)).map((r) => r.sample.pid),
  );
});
