// Runs inside a lab guest: exercises numakit's syscall layer (the built dist/native) for real and
// prints one JSON object for the host-side test (test/lab/syscalls.lab.test.ts) to judge.
//   node syscalls.mjs mbind NODE        bind a fresh buffer to NODE, touch it, report placement
//   node syscalls.mjs migrate FROM TO   move a child's pages FROM -> TO, numa_maps before/after
//   node syscalls.mjs affinity NODE     pin a child to NODE's CPUs, report /proc/PID/status
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const native = await import(fileURLToPath(new URL('../../../dist/native/index.js', import.meta.url)));
const MiB = 1 << 20;

function nodeCpus(node) {
  const list = readFileSync(`/sys/devices/system/node/node${node}/cpulist`, 'utf8').trim();
  return list
    .split(',')
    .filter(Boolean)
    .flatMap((r) => {
      const [a, b] = r.split('-').map(Number);
      return Array.from({ length: (b ?? a) - a + 1 }, (_, i) => a + i);
    });
}

function mbindScenario(node) {
  const buf = Buffer.allocUnsafeSlow(16 * MiB);
  const range = native.pageAlignedRange(buf);
  native.mbind(
    range,
    { mode: native.MPOL_BIND, nodes: [node] },
    { flags: native.MPOL_MF_MOVE | native.MPOL_MF_STRICT },
  );
  buf.fill(0x5a);
  const status = native.queryPages(native.pageAddresses(range));
  const nodes = {};
  for (const s of status) {
    const k = s.kind === 'node' ? String(s.node) : s.code;
    nodes[k] = (nodes[k] ?? 0) + 1;
  }
  const start = range.addr.toString(16);
  const line = readFileSync('/proc/self/numa_maps', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${start} `));
  return { pages: status.length, pageSize: native.pageSize(), start, moveQuery: nodes, numaMapsLine: line ?? null };
}

async function startHog(preferred, mib) {
  const code = `const b=Buffer.alloc(${mib}*1048576,1);process.stdout.write('ready\\n');setInterval(()=>b[0]++,1000)`;
  const child = spawn('numactl', [`--preferred=${preferred}`, process.execPath, '-e', code], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // A hog that dies or never says ready fails this section at once instead of hanging the guest
  // until its timeout (which would fail every section of the boot, this one's cause unseen).
  const said = await Promise.race([
    once(child.stdout, 'data').then(([chunk]) => String(chunk)),
    once(child, 'exit').then(([code, signal]) => `nothing: it exited ${code ?? signal}`),
    once(child, 'error').then(([e]) => `nothing: ${e.message}`),
    new Promise((resolve) => setTimeout(resolve, 60_000, 'nothing in 60 s').unref()),
  ]);
  if (!said.includes('ready')) {
    child.kill('SIGKILL');
    throw new Error(`the ${mib} MiB hog preferring node ${preferred} said ${said}`);
  }
  return child;
}

async function migrateScenario(from, to) {
  const child = await startHog(from, 64);
  try {
    const before = readFileSync(`/proc/${child.pid}/numa_maps`, 'utf8');
    const notMoved = native.migratePages(child.pid, { from: [from], to: [to] });
    const after = readFileSync(`/proc/${child.pid}/numa_maps`, 'utf8');
    return { pid: child.pid, notMoved, before, after };
  } finally {
    child.kill('SIGKILL');
  }
}

async function affinityScenario(node) {
  const child = spawn('sleep', ['60'], { stdio: 'ignore' });
  await once(child, 'spawn');
  try {
    const cpus = nodeCpus(node);
    const statusBefore = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    native.setAffinity(child.pid, cpus);
    const statusAfter = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    return { pid: child.pid, cpus, getAffinity: native.getAffinity(child.pid), statusBefore, statusAfter };
  } finally {
    child.kill('SIGKILL');
  }
}

const [scenario, a, b] = process.argv.slice(2);
const run = {
  mbind: () => mbindScenario(Number(a)),
  migrate: () => migrateScenario(Number(a), Number(b)),
  affinity: () => affinityScenario(Number(a)),
}[scenario];
if (!run) {
  console.error('usage: syscalls.mjs mbind NODE | migrate FROM TO | affinity NODE');
  process.exit(2);
}
process.stdout.write(JSON.stringify(await run()) + '\n');
