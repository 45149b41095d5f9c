// The soak run inside a lab guest (bench/soak.mjs boots the guest; test/lab/soak.lab.test.ts runs
// a short one): `numakit serve` and `numakit agent --metrics` for --seconds under churn, sampled
// every --sample seconds. Prints `SOAK-SAMPLE {json}` per sample as it goes and one line
// `SOAK {json}` at the end: the daemons' exit codes and what the workload did, not the samples
// (bench/soak_lib.mjs parseSoakOutput puts them together). Needs root (cgroups, the agent acting) and loopback up.
//   node soak.mjs [--seconds 120] [--sample 5] [--rate 60] [--large-every 30] [--scrapers 20]
//                 [--slow 4] [--agent-memory-max 256M] [--state-dir /var/lib/numakit-soak]
// The workload: --rate short-lived processes a minute (sleep 0.2-3 s; every third in a fresh
// cgroup v2 leaf, removed once it ends); every --large-every seconds a large, misplaced busy
// process (48 MiB on node 1, threads on node 0: agent_workload.mjs) that lives 20-40 s; this
// process's own worker threads started and ended every few seconds. Each sample: the daemons'
// RSS, V8 heap (their /metrics), open fds, CPU, the journal's bytes and the state directory's
// files, serve's scrape time; --scrapers concurrent scrapes of serve and --slow clients that
// send their headers one byte a second (dropped by serve's header timeout) every sample.
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { get } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

const argv = process.argv.slice(2);
const arg = (k, d) => (argv.includes(k) ? argv[argv.indexOf(k) + 1] : d);
const seconds = Number(arg('--seconds', 120));
const sampleS = Number(arg('--sample', 5));
const rate = Number(arg('--rate', 60));
const largeEvery = Number(arg('--large-every', 30));
const scrapers = Number(arg('--scrapers', 20));
const slow = Number(arg('--slow', 4));
const memoryMax = arg('--agent-memory-max', null);
const stateDir = arg('--state-dir', '/var/lib/numakit-soak');
const cli = fileURLToPath(new URL('../../../dist/cli/bin.js', import.meta.url));
const workloadJs = fileURLToPath(new URL('agent_workload.mjs', import.meta.url));
const SERVE = '127.0.0.1:10464';
const AGENT = '127.0.0.1:9465';
const CG = '/sys/fs/cgroup';

const children = new Set();
const counts = {
  short: 0,
  large: 0,
  threads: 0,
  cgroups: 0,
  cgroupErrors: 0,
  scrapeErrors: 0,
  slowDropped: 0,
  burstsSkipped: 0,
  spawnErrors: 0,
  sampleErrors: 0,
};
// Whatever goes wrong in the harness itself is said in one line the host keeps (bench/soak.mjs
// writes the guest's whole output to guest.log), never a silent end.
process.on('uncaughtException', (e) => {
  process.stdout.write(`SOAK-FATAL ${e?.stack ?? e}\n`);
  process.exit(1);
});
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function cgroupRoot() {
  if (!existsSync(`${CG}/cgroup.controllers`)) spawnSync('mount', ['-t', 'cgroup2', 'none', CG]);
  try {
    writeFileSync(`${CG}/cgroup.subtree_control`, '+memory');
    return true;
  } catch {
    return existsSync(`${CG}/cgroup.controllers`);
  }
}

/**
 * The environment a shipped unit gives its daemon (contrib/numakit-*.service: `Environment=K=V`
 * lines, e.g. V8's young-generation size in NODE_OPTIONS), so that the soak runs each daemon as
 * it is deployed; OPTIONS (the command line) is given here.
 */
function unitEnvironment(unit) {
  const text = readFileSync(fileURLToPath(new URL(`../../../contrib/${unit}`, import.meta.url)), 'utf8');
  const env = {};
  for (const m of text.matchAll(/^Environment=([A-Z_]+)=(.*)$/gm)) if (m[1] !== 'OPTIONS') env[m[1]] = m[2];
  return env;
}

/** Starts a daemon (in `cgroup` when given) as its unit would; resolves once its output matches `ready`. */
function daemon(name, args, ready, unit, cgroup = null) {
  const argvD = [process.execPath, cli, ...args];
  const opts = { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...unitEnvironment(unit) } };
  const child =
    cgroup === null
      ? spawn(argvD[0], argvD.slice(1), opts)
      : spawn('sh', ['-c', `echo $$ > ${cgroup}/cgroup.procs && exec "$@"`, 'sh', ...argvD], opts);
  const d = { name, child, tail: [], lines: 0, moved: 0, exit: null };
  const onLine = (l) => {
    d.lines++;
    if (/ moved pid /.test(l)) d.moved++;
    d.tail.push(l);
    if (d.tail.length > 30) d.tail.shift();
  };
  let buf = '';
  const feed = (b) => {
    buf += b;
    const parts = buf.split('\n');
    buf = parts.pop();
    parts.forEach(onLine);
  };
  child.stdout.on('data', feed);
  child.stderr.on('data', feed);
  d.exited = new Promise((r) => child.on('close', (code, signal) => r((d.exit = { code, signal }))));
  return new Promise((resolve, reject) => {
    const t = setInterval(() => {
      if (d.tail.some((l) => ready.test(l))) {
        clearInterval(t);
        resolve(d);
      } else if (d.exit !== null) {
        clearInterval(t);
        reject(new Error(`${name} ended before it was ready: ${JSON.stringify(d.exit)}\n${d.tail.join('\n')}`));
      }
    }, 200);
  });
}

// --- what is sampled -------------------------------------------------------------------------

function procStatus(pid) {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), threads: Number(/^Threads:\s+(\d+)/m.exec(text)?.[1] ?? NaN) };
}

function cpuSeconds(pid) {
  const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

/**
 * A daemon's open fds in three parts: the /proc/PID/stat files its process samplers keep open (a
 * cache bounded at 512 a sampler that follows the processes alive: src/sysfs/proc_stat_files.ts),
 * its sockets (listening, and one per client connected: they follow the scrapers, and are
 * checked once the clients are gone, at the end), and the rest (files, pipes, epoll, timers:
 * what must stay flat). A link that vanished while read (the fd closed) counts as none.
 */
function fdCounts(pid) {
  let statCache = 0;
  let sockets = 0;
  let own = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    let target;
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue;
    }
    if (/^\/proc\/\d+\/stat$/.test(target)) statCache++;
    else if (target.startsWith('socket:')) sockets++;
    else own++;
  }
  return { own, sockets, statCache };
}

/**
 * Bytes and files under DIR, recursively. The agent writes its journal through a temporary file
 * renamed over the old one: a file listed and gone before its stat is not counted.
 */
function dirUsage(dir) {
  let bytes = 0;
  let files = 0;
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else {
        let size;
        try {
          size = statSync(p).size;
        } catch (err) {
          if (err.code === 'ENOENT') continue;
          throw err;
        }
        files++;
        bytes += size;
      }
    }
  };
  if (existsSync(dir)) walk(dir);
  return { bytes, files };
}

const metric = (text, name) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);

/**
 * GET /metrics on a connection of its own (closed after it), as Prometheus's scrapes come: a
 * keep-alive connection kept by the client outlives the daemon's 5 s keep-alive when a starved
 * guest runs the client's timers late, and the next request written to it fails (EPIPE).
 */
function scrape(addr) {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = get(`http://${addr}/metrics`, { agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ text, seconds: (performance.now() - t0) / 1000 }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/** Slow clients connected now (the end waits for none). */
let clientsOpen = 0;

/** A client that sends its request one byte a second: serve must drop it (headers timeout). */
function slowClient(addr) {
  const [host, port] = addr.split(':');
  const s = connect(Number(port), host);
  clientsOpen++;
  const req = 'GET /metrics HTTP/1.1\r\nHost: soak\r\nX-Slow: ';
  let i = 0;
  const t = setInterval(() => s.write(req[i++ % req.length]), 1000);
  s.on('error', () => {});
  s.on('close', () => {
    clearInterval(t);
    clientsOpen--;
    counts.slowDropped++;
  });
  setTimeout(() => s.destroy(), 30_000).unref();
}

/**
 * The daemons' /metrics, scraped in the background: a scrape under TCG on a loaded host takes
 * seconds to tens of seconds, and must not hold back the /proc samples. Each sample records the
 * heap and scrape time of the last scrape that ended (null before the first).
 */
const lastScrape = new Map();

/** Counts a failed scrape; says each distinct reason once (why a run has no heap samples). */
const scrapeReasons = new Set();
function scrapeFailed(what, e) {
  counts.scrapeErrors++;
  const cause = e?.cause ? ` (${e.cause.code ?? e.cause.message ?? e.cause})` : '';
  const why = `${what}: ${e?.message ?? e}${cause}`;
  if (scrapeReasons.has(why)) return;
  scrapeReasons.add(why);
  process.stdout.write(`SOAK-ERROR scrape of ${why}\n`);
}
function scrapeInBackground(name, addr, prefix) {
  const st = lastScrape.get(name) ?? { running: false, heap: null, seconds: null };
  lastScrape.set(name, st);
  if (st.running) return;
  st.running = true;
  scrape(addr)
    .then((s) => {
      st.heap = metric(s.text, `${prefix}nodejs_heap_size_used_bytes`);
      // Recorded, not judged: where RSS goes when it is not the live heap.
      st.heapTotal = metric(s.text, `${prefix}nodejs_heap_size_total_bytes`);
      st.external = metric(s.text, `${prefix}nodejs_external_memory_bytes`);
      st.seconds = s.seconds;
    })
    .catch((e) => scrapeFailed(name, e))
    .finally(() => (st.running = false));
}

function sample(serve, agent, t0) {
  const row = { t: (performance.now() - t0) / 1000 };
  for (const [d, addr, prefix] of [
    [serve, SERVE, ''],
    [agent, AGENT, 'numakit_agent_'],
  ]) {
    const pid = d.child.pid;
    const st = procStatus(pid);
    row[`${d.name}_rss`] = st.rss;
    row[`${d.name}_threads`] = st.threads;
    const fds = fdCounts(pid);
    row[`${d.name}_fds`] = fds.own;
    row[`${d.name}_sockets`] = fds.sockets;
    row[`${d.name}_statfds`] = fds.statCache;
    row[`${d.name}_cpu`] = cpuSeconds(pid);
    const last = lastScrape.get(d.name);
    row[`${d.name}_heap`] = last?.heap ?? null;
    row[`${d.name}_heap_total`] = last?.heapTotal ?? null;
    row[`${d.name}_external`] = last?.external ?? null;
    row[`${d.name}_scrape`] = last?.seconds ?? null;
    scrapeInBackground(d.name, addr, prefix);
  }
  const j = dirUsage(join(stateDir, 'journal'));
  row.journal_bytes = j.bytes;
  row.state_files = dirUsage(stateDir).files;
  row.procs = readdirSync('/proc').filter((n) => /^\d+$/.test(n)).length;
  // Concurrent scrapers, started here and not waited for (a burst still running when the next
  // sample comes is not doubled: counted as skipped); the slowest of the last burst that ended.
  row.concurrent_scrape_max = burst.lastMax;
  if (burst.running) counts.burstsSkipped++;
  else if (scrapers > 0) {
    burst.running = true;
    void Promise.allSettled(Array.from({ length: scrapers }, () => scrape(SERVE))).then((all) => {
      for (const r of all) if (r.status === 'rejected') scrapeFailed('serve (burst)', r.reason);
      burst.lastMax = Math.max(0, ...all.filter((r) => r.status === 'fulfilled').map((r) => r.value.seconds));
      burst.running = false;
    });
  }
  // At most two samples' worth open: in a starved guest serve drops them late, and a pile of
  // them would fill its 64 connections, refusing the scrapes.
  for (let i = 0; i < slow && clientsOpen < 2 * slow; i++) slowClient(SERVE);
  return row;
}

const burst = { running: false, lastMax: null };

// --- the workload ----------------------------------------------------------------------------

function shortLived(i, cg) {
  const secs = (0.2 + ((i * 7919) % 28) / 10).toFixed(1);
  let dir = null;
  if (cg && i % 3 === 0) {
    dir = `${CG}/soak-${process.pid}-${i}`;
    try {
      mkdirSync(dir);
      counts.cgroups++;
    } catch {
      counts.cgroupErrors++;
      dir = null;
    }
  }
  const c =
    dir === null
      ? spawn('sleep', [secs], { stdio: 'ignore' })
      : spawn('sh', ['-c', `echo $$ > ${dir}/cgroup.procs && exec sleep ${secs}`], { stdio: 'ignore' });
  counts.short++;
  c.on('error', () => counts.spawnErrors++);
  children.add(c);
  c.on('close', () => {
    children.delete(c);
    if (dir !== null) {
      try {
        rmdirSync(dir);
      } catch {
        counts.cgroupErrors++;
      }
    }
  });
}

/**
 * Starts the short-lived processes due by now at --rate a minute, a few at a time: a guest
 * starved by a loaded host runs its timers late and merges the ticks it missed, which once left
 * 7-10 processes of the 180 asked in a 180 s run.
 */
function shortLivedDue(t0, cg) {
  const due = Math.floor(((performance.now() - t0) / 60_000) * rate);
  for (let n = 0; n < 5 && counts.short < due; n++) shortLived(counts.short, cg);
}

function large(i) {
  const c = spawn('numactl', ['--cpunodebind=0', '--membind=1', process.execPath, workloadJs, '48'], {
    stdio: 'ignore',
  });
  counts.large++;
  c.on('error', () => counts.spawnErrors++);
  children.add(c);
  c.on('close', () => children.delete(c));
  setTimeout(() => c.kill('SIGKILL'), 20_000 + ((i * 104729) % 20_000)).unref();
}

function threadChurn() {
  const w = new Worker('setTimeout(() => {}, 1500 + Math.random() * 2000)', { eval: true });
  counts.threads++;
  w.on('error', () => {});
}

// --- the run ---------------------------------------------------------------------------------

const cg = cgroupRoot();
let agentCg = null;
if (memoryMax !== null && cg) {
  agentCg = `${CG}/soak-agent`;
  mkdirSync(agentCg, { recursive: true });
  writeFileSync(`${agentCg}/memory.max`, memoryMax);
}
const serve = await daemon('serve', ['serve', '--listen', SERVE], /numakit serve: http:/, 'numakit-exporter.service');
const agent = await daemon(
  'agent',
  // --override-pins: numactl's CPU binding stays on the workload's V8 threads (agent_workload.mjs unbinds its main thread only).
  [
    'agent',
    '--interval',
    '2s',
    '--state-dir',
    stateDir,
    '--metrics',
    AGENT,
    '--include',
    'agent_workload',
    '--override-pins',
  ],
  /numakit agent ready/,
  'numakit-agent.service',
  agentCg,
);
// Each daemon's sockets before any client came: what it must be back to once they are gone.
const socketsAtStart = { serve: fdCounts(serve.child.pid).sockets, agent: fdCounts(agent.child.pid).sockets };
const t0 = performance.now();
const samples = [];
process.stdout.write(`SOAK-START ${JSON.stringify({ seconds, sampleSeconds: sampleS, rate, scrapers, slow })}\n`);
const timers = [
  setInterval(() => shortLivedDue(t0, cg), 60_000 / rate),
  setInterval(() => large(counts.large), largeEvery * 1000),
  setInterval(threadChurn, 3000),
];
large(0);
let stoppedAt = null;
while ((performance.now() - t0) / 1000 < seconds) {
  const next = t0 + (samples.length + 1) * sampleS * 1000;
  // A daemon that ended is the run's end: its exit and last lines are the result.
  const ended = [serve, agent].filter((d) => d.exit !== null);
  if (ended.length > 0) {
    stoppedAt = (performance.now() - t0) / 1000;
    for (const d of ended)
      process.stdout.write(`SOAK-ERROR ${d.name} ended during the run: ${JSON.stringify(d.exit)}\n`);
    break;
  }
  try {
    const row = sample(serve, agent, t0);
    samples.push(row);
    // Each sample as it is taken: a run the lab's timeout cuts short still tells what it saw.
    process.stdout.write(`SOAK-SAMPLE ${JSON.stringify(row)}\n`);
  } catch (e) {
    counts.sampleErrors++;
    process.stdout.write(`SOAK-ERROR sample: ${e?.message ?? e}\n`);
  }
  await sleep(Math.max(0, next - performance.now()));
}
timers.forEach(clearInterval);
for (const c of children) c.kill('SIGKILL');
// Every client gone (the burst, the slow clients, the background scrapes), then fetch's and the
// daemons' keep-alive timeouts (4-5 s): a daemon holds only the sockets it started with. Polled
// until each is back to them, 10 s at most: a leaked socket is still open then.
const settle = performance.now();
while (
  (burst.running || clientsOpen > 0 || [...lastScrape.values()].some((x) => x.running)) &&
  performance.now() - settle < 120_000
)
  await sleep(500);
const backToStart = () =>
  [serve, agent].every((d) => d.exit !== null || fdCounts(d.child.pid).sockets <= socketsAtStart[d.name]);
const keepAlive = performance.now();
while (!backToStart() && performance.now() - keepAlive < 10_000) await sleep(250);
const socketsAfter = Object.fromEntries(
  [serve, agent].filter((d) => d.exit === null).map((d) => [d.name, fdCounts(d.child.pid).sockets]),
);
const oom = agentCg === null ? null : readFileSync(`${agentCg}/memory.events`, 'utf8');
const peak =
  agentCg !== null && existsSync(`${agentCg}/memory.peak`) ? readFileSync(`${agentCg}/memory.peak`, 'utf8') : null;
agent.child.kill('SIGTERM');
serve.child.kill('SIGTERM');
await Promise.all([agent.exited, serve.exited]);
const left = dirUsage(join(stateDir, 'journal'));
const result = {
  seconds: stoppedAt ?? seconds,
  ...(stoppedAt === null ? {} : { cutShort: true }),
  sampleSeconds: sampleS,
  rate,
  scrapers,
  slow,
  agentMemoryMax: memoryMax,
  agentMemoryEvents: oom,
  agentMemoryPeak: peak === null ? null : Number(peak),
  counts,
  socketsAtStart,
  socketsAfter,
  journalAfter: left,
  daemons: Object.fromEntries(
    [serve, agent].map((d) => [d.name, { exit: d.exit, lines: d.lines, moved: d.moved, tail: d.tail }]),
  ),
};
process.stdout.write(`SOAK ${JSON.stringify(result)}\n`);
process.exit(0);
