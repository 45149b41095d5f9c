// In a lab guest (bench/agent-page-loops.mjs): the agent mover's per-page loops of one build
// (DIST: its dist/ directory) over 25 batches of 4096 pages with a fake move_pages, queried spans
// then direct ones, three rounds each; prints the user CPU ms of each round as a LOOPS line.
//   node page_loops.mjs DIST
import { resolve } from 'node:path';

const dist = resolve(process.argv[2]);
const N = 4096;
const target = new Map([
  [0, 2],
  [1, 2],
]);
const ops = {
  movePages(_pid, n, _w, nodes, status) {
    if (nodes === null) status.fill(1, 0, n);
    else status.set(nodes.subarray(0, n));
    return 0;
  },
};
const mb = await import(`${dist}/agent/move_batch.js`);
let batch;
if (mb.BatchBuffers) {
  // before the WebAssembly loops: the target map passed per batch
  const b = new mb.BatchBuffers();
  b.ensure(N);
  batch = (query, i) => {
    b.addrs.fill(0x7f0000000000 + i * N * 4096, 4096, N);
    return mb.moveBatch(ops, 1, { query, to: query ? null : 2 }, target, b, N);
  };
} else {
  const { BatchBuffers } = await import(`${dist}/agent/page_batch.js`);
  const b = new BatchBuffers();
  b.setTargets(target);
  b.ensure(N);
  batch = (query, i) => {
    b.fill(0x7f0000000000 + i * N * 4096, 4096, N);
    return mb.moveBatch(ops, 1, { query, to: query ? null : 2 }, b, N);
  };
}
for (const query of [true, false]) {
  for (let round = 0; round < 3; round++) {
    const t = process.cpuUsage().user;
    let moved = 0;
    for (let i = 0; i < 25; i++) moved += batch(query, i).moved;
    if (moved !== 25 * N) throw new Error(`moved ${moved} of ${25 * N}`);
    console.log(
      `LOOPS ${JSON.stringify({ dist: process.argv[2], spans: query ? 'queried' : 'direct', round, userMs: (process.cpuUsage().user - t) / 1000 })}`,
    );
  }
}
