// A busy, misplaced process for the agent's lab tests and bench (runs in a guest). Start it under
// `numactl --cpunodebind=C --membind=M`: it allocates and touches MIB MiB (on node M), then drops
// the memory policy and the main thread's CPU binding (unless --pin), so that nothing marks it as
// placed by the user, and keeps touching its memory at random (one page per step) for ever.
// --exit-after S: exits once it has lived S seconds (a short job: a build step, a script).
// --helpers N adds N helper threads (worker_threads) that each spin up to 30% of the time without
// touching that memory: a hot thread plus GC/JIT-like helpers.
//   numactl --cpunodebind=0 --membind=1 node agent_workload.mjs MIB [--pin] [--helpers N] [--idle]
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

const native = await import(fileURLToPath(new URL('../../../dist/native/index.js', import.meta.url)));
const mib = Number(process.argv[2] ?? 100);
const pin = process.argv.includes('--pin');
const buf = Buffer.alloc(mib * 1048576, 1);
if (!pin) {
  native.setMempolicy({ mode: native.MPOL_DEFAULT, nodes: [] });
  const all = Array.from({ length: native.possibleCpuCount() }, (_, i) => i);
  native.setAffinity(0, all);
}
const helpers = process.argv.includes('--helpers') ? Number(process.argv[process.argv.indexOf('--helpers') + 1]) : 0;
// Each helper spins 30 ms then sleeps 70 ms: at most 30% of a CPU (less when a timer is late).
const HELPER =
  'const spin = () => { const e = Date.now() + 30; while (Date.now() < e); setTimeout(spin, 70); }; spin();';
for (let i = 0; i < helpers; i++) new Worker(HELPER, { eval: true });
process.stdout.write(`ready ${process.pid}\n`);
// --idle: holds its memory and does nothing (a sidecar in a pod, a helper process of a service).
if (process.argv.includes('--idle')) await new Promise(() => setInterval(() => {}, 1 << 30));
const pages = buf.length >> 12;
const exitAfter = process.argv.includes('--exit-after')
  ? Number(process.argv[process.argv.indexOf('--exit-after') + 1])
  : Infinity;
let x = 12345;
while (process.uptime() < exitAfter) {
  for (let i = 0; i < 1e5; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    buf[(x % pages) << 12]++;
  }
  await new Promise((r) => setImmediate(r));
}
process.exit(0);
