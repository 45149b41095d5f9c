#!/usr/bin/env node
// CPU cost of one scrape of `numakit serve` against node_exporter's meminfo_numa + processes
// collectors (Debian prometheus-node-exporter 1.5: node_memory_numa_* and node_processes_*,
// which reads every process's and thread's stat) on the same machine, in the same run: N
// scrapes of each, alternating in rounds, CPU time (utime + stime of each server from
// /proc/PID/stat, 10 ms ticks) per scrape. The machine gets --procs extra processes (default
// 64: most idle `sleep`, every 8th holding 64 MiB) so the process collectors have work.
// Goal (issue 14): numakit no more CPU than node_exporter.
//   npm run build && node bench/serve-scrape.mjs [--scrapes N] [--rounds N] [--procs N] [--top K]
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const arg = (name, dflt) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : dflt);
const scrapes = arg('--scrapes', 50);
const rounds = arg('--rounds', 5);
const nprocs = arg('--procs', 64);
const top = arg('--top', 10);
const bin = fileURLToPath(new URL('../dist/cli/bin.js', import.meta.url));
const NE = '/usr/bin/prometheus-node-exporter';

const children = [];
process.on('exit', () => children.forEach((c) => c.kill('SIGKILL')));
for (let i = 0; i < nprocs; i++) {
  const c =
    i % 8 === 0
      ? spawn(process.execPath, ['-e', 'const b = Buffer.alloc(64 << 20, 1); setInterval(() => b[0]++, 60000)'], {
          stdio: 'ignore',
        })
      : spawn('sleep', ['3600'], { stdio: 'ignore' });
  children.push(c);
}

function cpuTicks(pid) {
  const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]);
}

function start(cmd, args, pattern, env = {}) {
  const c = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  children.push(c);
  return new Promise((resolve, reject) => {
    let log = '';
    const t = setTimeout(() => reject(new Error(`${cmd} did not start: ${log}`)), 120000);
    const on = (d) => {
      log += d;
      const m = pattern.exec(log);
      if (m) {
        clearTimeout(t);
        resolve({ pid: c.pid, url: `http://127.0.0.1:${m[1]}/metrics` });
      }
    };
    c.stdout.on('data', on);
    c.stderr.on('data', on);
  });
}

async function measure(srv) {
  const t0 = cpuTicks(srv.pid);
  let bytes = 0;
  for (let i = 0; i < scrapes; i++) bytes += (await (await fetch(srv.url)).text()).length;
  return { ms: ((cpuTicks(srv.pid) - t0) * 10) / scrapes, bytes: bytes / scrapes };
}

await new Promise((r) => setTimeout(r, 500));
const nkArgs = [bin, 'serve', '--listen', '127.0.0.1:0', '--top', String(top), '--doctor-interval', '24h'];
const nk = await start(process.execPath, nkArgs, /127\.0\.0\.1:(\d+)\//);
// The same with every numa_maps read at every scrape (what a scrape costs when the 30 s reuse
// does not apply: scrape intervals over 30 s, or RSS moving by more than 10%).
const cold = await start(process.execPath, nkArgs, /127\.0\.0\.1:(\d+)\//, { NUMAKIT_SERVE_MAPS_TTL_MS: '0' });
const ne = await start(
  NE,
  [
    '--web.listen-address=127.0.0.1:0',
    '--collector.disable-defaults',
    '--collector.meminfo_numa',
    '--collector.processes',
  ],
  /address=127\.0\.0\.1:(\d+)/,
);
// Warm both (JIT, first doctor run) before measuring.
for (let i = 0; i < 5; i++) await Promise.all([nk, cold, ne].map((x) => fetch(x.url).then((r) => r.text())));
await new Promise((r) => setTimeout(r, 1500));
const res = { numakit: [], cold: [], node_exporter: [] };
for (let r = 0; r < rounds; r++) {
  res.numakit.push(await measure(nk));
  res.cold.push(await measure(cold));
  res.node_exporter.push(await measure(ne));
}
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const a = med(res.numakit.map((x) => x.ms));
const b = med(res.node_exporter.map((x) => x.ms));
const c = med(res.cold.map((x) => x.ms));
const nodes = readdirSync('/sys/devices/system/node').filter((n) => /^node\d+$/.test(n)).length;
const procs = readFileSync('/proc/loadavg', 'utf8').split(' ')[3];
console.log(
  `${nodes} NUMA node(s); processes on the machine (running/total): ${procs}; ${scrapes} scrapes x ${rounds} rounds; numakit --top ${top}`,
);
console.log(
  `numakit serve                                   ${a.toFixed(2)} ms CPU per scrape, ${Math.round(med(res.numakit.map((x) => x.bytes)) / 1024)} KiB`,
);
console.log(`numakit serve, numa_maps re-read every scrape   ${c.toFixed(2)} ms CPU per scrape`);
console.log(
  `node_exporter meminfo_numa + processes          ${b.toFixed(2)} ms CPU per scrape, ${Math.round(med(res.node_exporter.map((x) => x.bytes)) / 1024)} KiB`,
);
// Where numakit's scrape time goes (its own numakit_scrape_collector_duration_seconds).
const last = await (await fetch(nk.url)).text();
const parts = [...last.matchAll(/^numakit_scrape_collector_duration_seconds\{collector="(\w+)"\} (\S+)$/gm)].map(
  (m) => `${m[1]} ${(Number(m[2]) * 1000).toFixed(1)}`,
);
const maps = /^numakit_processes_numa_maps_read (\S+)$/m.exec(last)?.[1];
console.log(`numakit collectors (ms wall, last scrape): ${parts.join(', ')}; numa_maps read: ${maps}`);
console.log(
  `ratio numakit / node_exporter: ${(a / b).toFixed(2)} (goal <= 1); with every numa_maps re-read: ${(c / b).toFixed(2)}`,
);
process.exit(0);
