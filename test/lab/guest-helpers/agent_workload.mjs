// A busy, misplaced process for the agent's lab tests and bench (runs in a guest). Start it under
// `numactl --cpunodebind=C --membind=M`: it allocates and touches MIB MiB (on node M), then drops
// the memory policy and the main thread's CPU binding (unless --pin), so that nothing marks it as
// placed by the user, and keeps touching its memory at random (one page per step) for ever.
//   numactl --cpunodebind=0 --membind=1 node agent_workload.mjs MIB [--pin]
import { fileURLToPath } from 'node:url';

const native = await import(fileURLToPath(new URL('../../../dist/native/index.js', import.meta.url)));
const mib = Number(process.argv[2] ?? 100);
const pin = process.argv.includes('--pin');
const buf = Buffer.alloc(mib * 1048576, 1);
if (!pin) {
  native.setMempolicy({ mode: native.MPOL_DEFAULT, nodes: [] });
  const all = Array.from({ length: native.possibleCpuCount() }, (_, i) => i);
  native.setAffinity(0, all);
}
process.stdout.write(`ready ${process.pid}\n`);
const pages = buf.length >> 12;
let x = 12345;
for (;;) {
  for (let i = 0; i < 1e5; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    buf[(x % pages) << 12]++;
  }
  await new Promise((r) => setImmediate(r));
}
