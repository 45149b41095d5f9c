import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_MEMORY_BYTES } from '../../../src/bench/buffer_size.ts';
import { FALLBACK_ARRAY_BYTES, planMem, type MemRequest, type PlanNode } from '../../../src/bench/mem_plan.ts';

const MiB = 2 ** 20;
const GiB = 2 ** 30;
const node = (id: number, cpus: number[], extra: Partial<PlanNode> = {}): PlanNode => ({
  id,
  cpus,
  hasMemory: true,
  memFreeBytes: 8 * GiB,
  llcBytes: 32 * MiB,
  ...extra,
});
const both: MemRequest = { bandwidth: true, latency: true, loaded: false };

test('arrays are 4x the last-level cache; the buffer holds three arrays or the latency cycle', () => {
  const p = planMem([node(0, [0, 1])], both);
  assert.equal(p.arrayBytes, 128 * MiB);
  assert.equal(p.latencyBytes, 256 * MiB);
  assert.equal(p.bufferBytes, 384 * MiB);
  assert.equal(p.arrayToCache, 4);
  assert.equal(p.ruleMet, true);
  assert.deepEqual(p.rows, [{ node: 0, cpus: [0, 1] }]);
  assert.deepEqual(p.cols, [0]);
});

test('memory-only nodes are columns, never rows; --threads takes the first CPUs of each node', () => {
  const p = planMem([node(0, [0, 1, 2, 3]), node(1, [4, 5, 6, 7]), node(2, [], { llcBytes: null })], {
    ...both,
    threads: 2,
  });
  assert.deepEqual(p.rows, [
    { node: 0, cpus: [0, 1] },
    { node: 1, cpus: [4, 5] },
  ]);
  assert.deepEqual(p.cols, [0, 1, 2]);
});

test('--nodes keeps only the named nodes as rows and columns', () => {
  const p = planMem([node(0, [0]), node(1, [1]), node(2, [2])], { ...both, nodes: [0, 2] });
  assert.deepEqual(
    p.rows.map((r) => r.node),
    [0, 2],
  );
  assert.deepEqual(p.cols, [0, 2]);
});

test('an unknown cache size falls back to a fixed array size, with a note', () => {
  const p = planMem([node(0, [0], { llcBytes: null })], both);
  assert.equal(p.arrayBytes, FALLBACK_ARRAY_BYTES);
  assert.equal(p.ruleMet, null);
  assert.match(p.notes.join('\n'), /last-level cache size unknown/);
});

test('a huge cache caps the arrays at what a WebAssembly memory holds, and says the rule is not met', () => {
  const p = planMem([node(0, [0], { llcBytes: 1152 * MiB })], { ...both, latency: false });
  assert.ok(3 * p.arrayBytes <= MAX_MEMORY_BYTES);
  assert.equal(p.ruleMet, false);
  assert.match(p.notes.join('\n'), /capped/);
  assert.match(p.notes.join('\n'), /below STREAM's 4x/);
});

test('an explicit --size below 4x the cache is measured but noted', () => {
  const p = planMem([node(0, [0])], { ...both, arrayBytes: 16 * MiB, latencyBytes: 16 * MiB });
  assert.equal(p.bufferBytes, 48 * MiB);
  assert.equal(p.ruleMet, false);
});

test("--loaded adds the streams' array after the latency cycle", () => {
  const p = planMem([node(0, [0, 1])], { ...both, loaded: true, latency: true, bandwidth: false });
  assert.equal(p.bufferBytes, 256 * MiB + 128 * MiB);
});

test('too little free memory on a column node is refused before allocation, with the numbers', () => {
  assert.throws(() => planMem([node(0, [0]), node(1, [1], { memFreeBytes: 200 * MiB })], both), {
    message:
      'not enough free memory on node 1: 200 MiB free, the benchmark buffer needs 384 MiB there (+64 MiB spare); use a smaller --size/--latency-size, or leave node 1 out with --nodes',
  });
});

test('a buffer over 4 GiB is a usage error', () => {
  assert.throws(() => planMem([node(0, [0])], { ...both, arrayBytes: 2 * GiB }), {
    exitCode: 2,
    message: /over the 4096 MiB a WebAssembly memory holds/,
  });
});

test('no node with usable CPUs or memory is a clear error', () => {
  assert.throws(() => planMem([node(0, [])], both), /no node with CPUs this process may use among nodes 0/);
  assert.throws(() => planMem([node(0, [0], { hasMemory: false })], both), /no node with memory among nodes 0/);
});
