// Run by mover.test.ts under `node --jitless` (no WebAssembly): one paced move with fake ops;
// prints its result as JSON.
import { movePaced } from '../../../src/agent/mover.js';
import type { ThreadOps } from '../../../src/agent/ops.js';

const ops = {
  anonRanges: () => [{ start: 0x10000, end: 0x20000, pageBytes: 4096, pages: new Map([[1, 16]]) }],
  movePages: () => 0,
} as unknown as ThreadOps;
const clock = { now: () => 0, cpuMs: () => 0, sleep: async () => {} };
const r = await movePaced(1, [1], [0], {
  ops,
  clock,
  pace: { mbps: 0, cpuShare: 1 },
  signal: new AbortController().signal,
});
process.stdout.write(`${JSON.stringify(r)}\n`);
