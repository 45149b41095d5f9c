// One agent scenario in a lab guest, under one tuner, measured the same way for every tuner;
// prints one JSON object. Used by test/lab/agent.lab.test.ts and bench/agent-vs-numad.mjs.
//   node agent_scenario.mjs TUNER SCENARIO [--mib N] [--timeout SEC] [--agent 'ARGS']
// TUNER: numakit (numakit agent), numad (as docs/LAB: unshare --time so it evaluates at once),
// numad-u100 (the same with -u 100), autonuma (kernel.numa_balancing=1, no daemon), none.
// SCENARIO: misplaced (memory on node 1, threads on node 0, node 1's CPU kept busy),
// misplaced-idle (same, node 1's CPU idle), competing (two processes on node 0's CPU, memory on
// nodes 1 and 2), leftalone (a small one, a user-pinned one and an excluded name, all misplaced),
// helpers (a hot thread and three helper threads), cgroup (a cgroup v2 leaf with CPUs 1-2, a busy
// and an idle process, memory on node 3), idle (no workload: the tuner's own cost over --timeout),
// fill (three busy processes of --mib each, memory on nodes 1, 2 and 3, started on node 0's CPU:
// together more than one node holds), large (one busy process larger than a node, its memory
// on nodes 1 and 2, started on node 0), burst (the tuner first, then a busy process that exits
// once it has lived --burst seconds: moving it would be waste), churn (the tuner first, then
// about 40 short-lived small processes a second for --timeout: the tuner's cost), and three flows that stop things
// midway: sigkill (the agent, then `numakit agent restore`), exit-mid (the process, while its
// memory moves), sigterm-mid (the agent, while it moves memory: how long it takes to exit).
// --tuner-first: start the tuner, wait until it is ready, then start the workloads and measure
// from the moment they are ready (a daemon already running when a misplaced process appears: what
// the bench compares, so that Node's start-up under TCG is not counted as placement time).
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  affinities,
  cpuSeconds,
  localityBetween,
  nodeFreeMiB,
  nodeOfCpu,
  pagesPerNode,
  systemCpuSeconds,
  threadLocality,
  threadTicks,
  vmstat,
} from './agent_probe.mjs';

const [tuner, scenario] = process.argv.slice(2);
const opt = (k, d) => {
  const i = process.argv.indexOf(k);
  return i > 0 ? process.argv[i + 1] : d;
};
const MIB = Number(opt('--mib', 200));
const TIMEOUT = Number(opt('--timeout', 20)) * 1000;
const WORKLOAD = fileURLToPath(new URL('agent_workload.mjs', import.meta.url));
// --cli PATH: another build of numakit (bench/agent-vs-numad.mjs --before: an earlier build in the same run).
const CLI = opt('--cli', null) ?? fileURLToPath(new URL('../../../dist/cli/numakit.cjs', import.meta.url));
const cpuNode = nodeOfCpu();
const cpusOf = (n) => [...cpuNode].filter(([, x]) => x === n).map(([c]) => c);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// How long a tuner that runs first may take to be ready: Node's start-up over 9p under TCG took
// over 20 s on a loaded host, and a measure from before ready counts its start-up as its cost.
const READY_MS = Math.max(TIMEOUT, 300_000);
const started = [];
// The workloads never outlive this runner, whatever ends it (an exception included): one left
// running is a busy process the next scenario's tuner finds and moves.
process.on('exit', () => {
  for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

async function workload(name, mib, memNode, cpuNodeId, extra = [], cgroup = null) {
  // --name puts the name on its command line (for --exclude)
  const argv = [
    'numactl',
    `--cpunodebind=${cpuNodeId}`,
    `--membind=${memNode}`,
    process.execPath,
    WORKLOAD,
    String(mib),
    '--name',
    name,
    ...extra,
  ];
  // In a cgroup from the start: cgroup v2 charges memory to the cgroup its process was in when it
  // allocated (moved in later, its memory stays charged where it was: not in memory.numa_stat).
  const child =
    cgroup === null
      ? spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] })
      : spawn('sh', ['-c', `echo $$ > ${cgroup}/cgroup.procs && exec "$@"`, 'sh', ...argv], {
          stdio: ['ignore', 'pipe', 'inherit'],
        });
  started.push(child);
  const [chunk] = await once(child.stdout, 'data');
  if (!String(chunk).startsWith('ready')) throw new Error(`workload ${name}: ${chunk}`);
  return { name, pid: child.pid, child, affinityBefore: affinities(child.pid) };
}

/** A cgroup v2 leaf under /sys/fs/cgroup (mounted here if the guest's init did not) with cpuset.cpus = CPUS. */
function labCgroup(path, cpus) {
  const top = '/sys/fs/cgroup';
  if (!existsSync(`${top}/cgroup.controllers`)) spawnSync('mount', ['-t', 'cgroup2', 'none', top]);
  let dir = top;
  for (const part of path.split('/').filter(Boolean)) {
    writeFileSync(`${dir}/cgroup.subtree_control`, '+cpuset +cpu +memory');
    dir = `${dir}/${part}`;
    mkdirSync(dir, { recursive: true });
  }
  writeFileSync(`${dir}/cpuset.cpus`, cpus);
  return dir;
}

function spinner(cpu) {
  const child = spawn('taskset', ['-c', String(cpu), 'sh', '-c', 'while :; do :; done'], { stdio: 'ignore' });
  started.push(child);
}

const SCENARIOS = {
  // Pinned by numactl (main thread too): it stays misplaced until the agent acts (--override-pins).
  'misplaced-pinned': async () => {
    spinner(cpusOf(1)[0]);
    return [await workload('busy', MIB, 1, 0, ['--pin'])];
  },
  // Pinned, node 1 idle: with --tune threads its threads must leave node 0 (an affinity that changes).
  'misplaced-pinned-idle': async () => [await workload('busy', MIB, 1, 0, ['--pin'])],
  misplaced: async () => {
    spinner(cpusOf(1)[0]);
    return [await workload('busy', MIB, 1, 0)];
  },
  'misplaced-idle': async () => [await workload('busy', MIB, 1, 0)],
  competing: async () => [await workload('first', MIB, 1, 0), await workload('second', MIB, 2, 0)],
  // A hot main thread plus three helpers at up to 30% each: 1.9 CPUs, a little over one 1-CPU
  // node (and its slack), each helper well under half as busy as the hot thread.
  helpers: async () => [await workload('busy', MIB, 1, 0, ['--helpers', '3'])],
  // Nothing to manage: what the tuner costs by itself.
  idle: async () => [],
  // A cgroup v2 leaf with CPUs 1-2 (node 1 and 2) holding a busy process and an idle one, their
  // memory on node 3: placed as one unit, within its cpuset.
  cgroup: async () => {
    const cg = labCgroup('/lab/app', '1-2');
    return [await workload('busy', MIB, 3, 1, [], cg), await workload('side', 16, 3, 1, ['--idle'], cg)];
  },
  fill: async () => [await workload('a', MIB, 1, 0), await workload('b', MIB, 2, 0), await workload('c', MIB, 3, 0)],
  large: async () => [await workload('busy', MIB, '1,2', 0)],
  leftalone: async () => [
    await workload('tiny', 8, 1, 0),
    await workload('pinned', MIB, 1, 0, ['--pin']),
    await workload('batchjob', MIB, 1, 0),
  ],
};

function startTuner() {
  if (tuner === 'autonuma' || tuner === 'none') {
    writeFileSync('/proc/sys/kernel/numa_balancing', tuner === 'autonuma' ? '1' : '0');
    return null;
  }
  if (tuner === 'numad' || tuner === 'numad-u100') {
    writeFileSync('/proc/sys/kernel/numa_balancing', '0');
    writeFileSync('/var/log/numad.log', ''); // its log appends: this run's lines only
    // numad-u100: target utilization 100% instead of 85%, so that one busy thread (which numad
    // counts as 1.17 CPUs at 85%) fits a 1-CPU node: numad at its best on this topology.
    const u = tuner === 'numad-u100' ? ['-u', '100'] : [];
    spawnSync('unshare', ['--time', '--fork', '--monotonic', '100000', 'numad', '-i', '5', '-l', '7', ...u]);
    const pid = Number(spawnSync('pidof', ['numad'], { encoding: 'utf8' }).stdout.trim().split(' ')[0]);
    return {
      pid,
      // numad may have exited by itself (its log says why): nothing to stop then.
      stop: async () => {
        try {
          process.kill(pid, 'SIGTERM');
        } catch (e) {
          if (e.code !== 'ESRCH') throw e;
        }
        return null;
      },
      log: () => {
        try {
          return readFileSync('/var/log/numad.log', 'utf8');
        } catch {
          return '';
        }
      },
    };
  }
  const args = (opt('--agent', '') || '').split(' ').filter(Boolean);
  const child = spawn(
    process.execPath,
    [
      CLI,
      'agent',
      '--interval',
      opt('--interval', '5s'),
      '--log-format',
      'json',
      '--state-dir',
      '/run/numakit-agent',
      ...args,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  const t = { exited: once(child, 'exit'), after: [] };
  child.stdout.on('data', (d) => {
    log += d;
    // Line by line: the stop's lines can arrive in one chunk, and each is kept (its start) with the chunk's time.
    if (t.stoppedAt !== undefined)
      for (const l of String(d).split('\n')) if (l !== '') t.after.push([Date.now() - t.stoppedAt, l.slice(0, 240)]);
    if (t.readyAt === undefined && log.includes('"event":"ready"')) {
      t.readyAt = Date.now();
      t.cpuAtReady = cpuSeconds(child.pid);
      t.sysAtReady = systemCpuSeconds(child.pid);
    }
  });
  child.stderr.on('data', (d) => (log += d));
  return Object.assign(t, {
    pid: child.pid,
    stop: async () => {
      child.kill('SIGTERM');
      const [code] = await once(child, 'exit');
      return code;
    },
    log: () => log,
  });
}

/**
 * This runner's reads (every thread's stat each tick, numa_maps every 2 s: a fifth to a half of a
 * vCPU under TCG) run on node 0's CPUs while it measures: the workloads start there and every
 * scenario's goal is for them to leave it, so the runner's load sits where no goal needs room.
 * Left to the scheduler it ran on whichever CPU was free, in fill the one node a process's memory
 * was on, and a tuner that saw that node busy copied the memory away. Called once the tuner and
 * the workloads are started (they must not inherit it; they bind themselves, or not, as the
 * scenario says).
 */
function keepToNode0() {
  const cpus = cpusOf(0);
  if (cpus.length > 0)
    spawnSync('taskset', ['-a', '-p', '-c', cpus.join(','), String(process.pid)], { stdio: 'ignore' });
}

/** The least free memory each node had while measured (MiB): a node a tuner filled up. */
const PAGES_EVERY_MS = 2000;
const PAGES_MOVING_MS = 500;
const freeMin = {};

async function measure(procs, t0) {
  if (procs.length === 0) {
    await sleep(TIMEOUT);
    return { t95: {}, hot95: {}, trace: [], hotTrace: [] };
  }
  keepToNode0();
  const t95 = Object.fromEntries(procs.map((p) => [p.name, null]));
  // The main thread's own locality (the hot one in the helpers scenario), held like t95.
  const hot95 = Object.fromEntries(procs.map((p) => [p.name, null]));
  const hotTrace = [];
  const last = new Map(procs.map((p) => [p.pid, threadTicks(p.pid)]));
  let reachedAt = null;
  const trace = [];
  // Each process's pages per node, read again when pages migrated (anyone's; at most every
  // PAGES_MOVING_MS while they do) or every PAGES_EVERY_MS: numa_maps of a 140 MiB process walks
  // its page tables, tens of ms under TCG, and read for three processes every tick this runner
  // was half a CPU of load on the one node the fill scenario leaves free (the tuners saw it busy
  // and copied memory to the threads), and more while a copy ran.
  const pages = new Map();
  let migratedAt = -1;
  let clearedAt = 0;
  while (Date.now() - t0 < TIMEOUT) {
    await sleep(250);
    const now = Date.now();
    for (const [n, mib] of Object.entries(nodeFreeMiB())) freeMin[n] = Math.min(freeMin[n] ?? Infinity, mib);
    const migrated = vmstat('pgmigrate_success');
    if (migrated !== migratedAt && now - clearedAt >= PAGES_MOVING_MS) {
      pages.clear();
      clearedAt = now;
      migratedAt = migrated;
    }
    for (const p of procs) {
      const ticks = threadTicks(p.pid);
      const held = pages.get(p.pid);
      if (held === undefined || now - held.at >= PAGES_EVERY_MS) pages.set(p.pid, { at: now, of: pagesPerNode(p.pid) });
      const of = pages.get(p.pid).of;
      const l = localityBetween(p.pid, last.get(p.pid), ticks, cpuNode, of);
      const h = threadLocality(p.pid, p.pid, last.get(p.pid), ticks, cpuNode, of);
      if (h !== null) {
        hotTrace.push([p.name, now - t0, Math.round(h * 1000) / 1000]);
        if (h >= 0.95 && hot95[p.name] === null) hot95[p.name] = (now - t0) / 1000;
        if (h < 0.95) hot95[p.name] = null;
      }
      last.set(p.pid, ticks);
      trace.push([p.name, now - t0, Math.round(l.locality * 1000) / 1000]);
      if (l.locality >= 0.95 && t95[p.name] === null) t95[p.name] = (now - t0) / 1000;
      if (l.locality < 0.95) t95[p.name] = null; // must hold
    }
    // helpers: the hot thread's own locality; cgroup: the busy process (the idle one's threads do
    // not run, so where they ran last says nothing); otherwise every process.
    const goal = scenario === 'helpers' ? hot95 : scenario === 'cgroup' ? { busy: t95.busy } : t95;
    if (Object.values(goal).every((x) => x !== null)) reachedAt ??= now;
    else reachedAt = null;
    if (reachedAt !== null && now - reachedAt > 2000) break;
  }
  return { t95, hot95, trace, hotTrace };
}

async function finalLocality(p) {
  const a = threadTicks(p.pid);
  await sleep(1000);
  const b = threadTicks(p.pid);
  return { ...localityBetween(p.pid, a, b, cpuNode), hotLocality: threadLocality(p.pid, p.pid, a, b, cpuNode) };
}

const knob = () => readFileSync('/proc/sys/kernel/numa_balancing', 'utf8').trim();

async function waitFor(test, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (test()) return true;
    await sleep(20);
  }
  return false;
}

/** SIGKILL the agent after it moved a process's threads (run it with --tune threads), then `numakit agent restore`. */
async function sigkillFlow() {
  writeFileSync('/proc/sys/kernel/numa_balancing', '1');
  const [p] = await SCENARIOS['misplaced-pinned-idle']();
  const before = { affinity: affinities(p.pid), numaBalancing: knob() };
  const t = startTuner();
  const movedSeen = await waitFor(() => /"outcome":"moved"|moved pid/.test(t.log()), TIMEOUT);
  const during = { affinity: affinities(p.pid), numaBalancing: knob() };
  process.kill(t.pid, 'SIGKILL');
  // SIGKILL lands once the agent is out of the kernel (a migrate_pages in progress finishes
  // first); a systemd ExecStopPost likewise runs only after the main process is gone.
  await t.exited;
  const r = spawnSync(process.execPath, [CLI, 'agent', 'restore', '--state-dir', '/run/numakit-agent'], {
    encoding: 'utf8',
  });
  const after = { affinity: affinities(p.pid), numaBalancing: knob() };
  return {
    movedSeen,
    before,
    during,
    after,
    restore: { code: r.status, stdout: r.stdout, stderr: r.stderr },
    log: t.log(),
  };
}

/** The process exits (SIGKILL) while the agent migrates its pages. */
async function exitMidFlow() {
  writeFileSync('/proc/sys/kernel/numa_balancing', '0'); // only the agent migrates
  const [p] = await SCENARIOS['misplaced-pinned']();
  const pagesAtStart = pagesPerNode(p.pid);
  const t = startTuner();
  await waitFor(() => t.readyAt !== undefined, TIMEOUT);
  const m0 = vmstat('pgmigrate_success');
  const caught = await waitFor(() => vmstat('pgmigrate_success') > m0, TIMEOUT);
  p.child.kill('SIGKILL');
  const killedAfterPages = vmstat('pgmigrate_success') - m0;
  await sleep(3000);
  let alive = true;
  try {
    process.kill(t.pid, 0);
  } catch {
    alive = false;
  }
  const code = alive ? await t.stop() : null;
  return { caught, killedAfterPages, pagesAtStart, aliveAfter: alive, exitCode: code, pid: p.pid, log: t.log() };
}

/** The agent's newest change set (its journal under --state-dir /run/numakit-agent), or null. */
function lastJournal() {
  try {
    const dir = '/run/numakit-agent/journal';
    const last = readdirSync(dir)
      .filter((n) => n.endsWith('.json'))
      .sort()
      .at(-1);
    return last === undefined ? null : JSON.parse(readFileSync(`${dir}/${last}`, 'utf8'));
  } catch {
    return null; // not written yet, or being replaced
  }
}
const journalMoves = () => lastJournal()?.moves ?? [];

/**
 * SIGTERM to the agent while it moves a process's memory (run it with a low
 * --max-migrate-mbps so the move takes seconds): how long it takes to exit, and what it put back.
 */
async function sigtermMidFlow() {
  // The agent first (it switches AutoNUMA off), then the workload: AutoNUMA must not move it first.
  writeFileSync('/proc/sys/kernel/numa_balancing', '1');
  const t = startTuner();
  await waitFor(() => t.readyAt !== undefined, TIMEOUT);
  const [p] = await SCENARIOS.misplaced();
  const before = { affinity: p.affinityBefore, numaBalancing: '1' };
  // Mid-move: the agent's journal has its move of this process in progress; a second more lets
  // some batches through.
  const caught = await waitFor(() => journalMoves().some((m) => m.pid === p.pid && m.state === 'moving'), TIMEOUT);
  await sleep(1000);
  const during = {
    affinity: affinities(p.pid),
    numaBalancing: knob(),
    pages: pagesPerNode(p.pid),
    loggedBefore: /"outcome":"(moved|partial|stopped)"/.test(t.log()),
  };
  const sentAt = (t.stoppedAt = Date.now());
  process.kill(t.pid, 'SIGTERM');
  const [code] = await t.exited;
  const exitMs = Date.now() - sentAt;
  const after = { affinity: affinities(p.pid), numaBalancing: knob(), pages: pagesPerNode(p.pid) };
  const journal = lastJournal();
  return {
    caught,
    exitMs,
    outputAfterSignal: t.after,
    exitCode: code,
    before,
    during,
    after,
    moves: journal?.moves ?? null,
    status: journal?.status ?? null,
    log: t.log(),
  };
}

/** The tuner first (numakit: ready), then a second; the CPU it has used by then, its own and the kernel's. */
async function startFirst() {
  const t = startTuner();
  if (t !== null && tuner === 'numakit') await waitFor(() => t.readyAt !== undefined, READY_MS);
  await sleep(1000);
  return { t, cpu0: t === null ? null : cpuSeconds(t.pid), sys0: t === null ? null : systemCpuSeconds(t.pid) };
}

/** What the tuner used since startFirst(), its exit code and log, in the fields every scenario reports. */
async function tunerAfter({ t, cpu0, sys0 }, moved0) {
  const cpu = t === null ? null : cpuSeconds(t.pid);
  const sys = t === null ? null : systemCpuSeconds(t.pid);
  const exitCode = t === null ? null : await t.stop();
  return {
    tuner: opt('--label', tuner),
    scenario,
    mib: MIB,
    tunerFirst: true,
    t95: {},
    final: {},
    readyAfter: null,
    pagesMoved: vmstat('pgmigrate_success') - moved0,
    tunerCpuSeconds: cpu,
    tunerCpuManaging: cpu === null ? null : cpu - cpu0,
    tunerSystemCpuSeconds: sys,
    tunerSysManaging: sys === null ? null : sys - sys0,
    exitCode,
    log: t === null ? '' : t.log().slice(-20000),
  };
}

/** A busy misplaced process that exits once it has lived --burst seconds: moved or not, and what it cost. */
async function burstFlow() {
  writeFileSync('/proc/sys/kernel/numa_balancing', '0');
  const tf = await startFirst();
  const moved0 = vmstat('pgmigrate_success');
  const t0 = Date.now();
  const p = await workload('burst', MIB, 1, 0, ['--exit-after', opt('--burst', '2.5')]);
  await once(p.child, 'exit');
  // From its spawn to its exit as seen here (Node's start-up included; it exits by its own clock).
  const livedSeconds = (Date.now() - t0) / 1000;
  const pagesWhileAlive = vmstat('pgmigrate_success') - moved0;
  await sleep(3000);
  const r = await tunerAfter(tf, moved0);
  const movedIt = r.log
    .split('\n')
    .some((l) => l.includes(`"pid":${p.pid},`) && /"outcome":"(moved|partial|stopped)"/.test(l));
  return { ...r, pid: p.pid, livedSeconds, pagesWhileAlive, movedIt };
}

/** About 40 short-lived small processes a second (a shell's sleeps) for --timeout: the tuner's cost under churn. */
async function churnFlow() {
  writeFileSync('/proc/sys/kernel/numa_balancing', '0');
  const tf = await startFirst();
  const moved0 = vmstat('pgmigrate_success');
  const pid0 = Number(readFileSync('/proc/loadavg', 'utf8').trim().split(' ').at(-1));
  const sh = spawn('sh', ['-c', 'while :; do sleep 0.5 & sleep 0.05; done'], { stdio: 'ignore' });
  started.push(sh);
  await sleep(TIMEOUT);
  sh.kill('SIGKILL');
  const pids = Number(readFileSync('/proc/loadavg', 'utf8').trim().split(' ').at(-1)) - pid0;
  await sleep(600);
  return { ...(await tunerAfter(tf, moved0)), pidsCreated: pids };
}

const FLOWS = {
  sigkill: sigkillFlow,
  'exit-mid': exitMidFlow,
  'sigterm-mid': sigtermMidFlow,
  burst: burstFlow,
  churn: churnFlow,
};
if (FLOWS[scenario] !== undefined) {
  const r = await FLOWS[scenario]();
  for (const c of started) c.kill('SIGKILL');
  process.stdout.write(`${JSON.stringify(r)}\n`);
  process.exit(0);
}

// AutoNUMA only for its own run: the others are measured alone.
writeFileSync('/proc/sys/kernel/numa_balancing', '0');
const balancingBefore = readFileSync('/proc/sys/kernel/numa_balancing', 'utf8').trim();
const tunerFirst = process.argv.includes('--tuner-first');
let t = null;
let cpuBefore = null;
let sysBefore = null;
if (tunerFirst) {
  t = startTuner();
  if (t !== null && tuner === 'numakit') await waitFor(() => t.readyAt !== undefined, READY_MS);
  await sleep(1000);
  cpuBefore = t === null ? null : cpuSeconds(t.pid);
  sysBefore = t === null ? null : systemCpuSeconds(t.pid);
}
const procs = await SCENARIOS[scenario]();
const moved0 = vmstat('pgmigrate_success');
const t0 = Date.now();
if (!tunerFirst) t = startTuner();
const balancingDuring = [];
const { t95, hot95, trace, hotTrace } = await measure(procs, t0);
balancingDuring.push(readFileSync('/proc/sys/kernel/numa_balancing', 'utf8').trim());
const final = {};
for (const p of procs)
  final[p.name] = { ...(await finalLocality(p)), affinity: affinities(p.pid), affinityBefore: p.affinityBefore };
const tunerCpu = t === null ? null : cpuSeconds(t.pid);
const tunerSystemCpu = t === null ? null : systemCpuSeconds(t.pid);
const exitCode = t === null ? null : await t.stop();
await sleep(300);
const out = {
  tuner: opt('--label', tuner),
  scenario,
  mib: MIB,
  tunerFirst,
  t95,
  hot95,
  readyAfter: t?.readyAt === undefined ? null : (t.readyAt - t0) / 1000,
  final,
  pagesMoved: vmstat('pgmigrate_success') - moved0,
  // CPU seconds: in all, and from the workloads' start (--tuner-first) or the tuner's ready line on.
  tunerCpuSeconds: tunerCpu,
  tunerCpuManaging: tunerCpu === null ? null : tunerCpu - (cpuBefore ?? t?.cpuAtReady ?? 0),
  tunerSystemCpuSeconds: tunerSystemCpu,
  // While managing (from the workloads' start, or the tuner's ready line): the kernel's share apart
  // (system time: mostly the page copying of its migrations) from the tuner's own (user) CPU.
  tunerSysManaging: tunerSystemCpu === null ? null : tunerSystemCpu - (sysBefore ?? t?.sysAtReady ?? 0),
  numaBalancing: {
    before: balancingBefore,
    during: balancingDuring[0],
    after: readFileSync('/proc/sys/kernel/numa_balancing', 'utf8').trim(),
  },
  affinityAfterExit: Object.fromEntries(procs.map((p) => [p.name, affinities(p.pid)])),
  nodeFreeMinMiB: freeMin,
  nodeFreeMiB: nodeFreeMiB(),
  // This runner's own CPU (it measures on the tuners' machine): user + system seconds.
  runnerCpuSeconds: (() => {
    const u = process.cpuUsage();
    return Math.round((u.user + u.system) / 1e4) / 100;
  })(),
  exitCode,
  log: t === null ? '' : t.log().slice(-20000),
  trace: trace.filter((_, i) => i % 4 === 0),
  hotTrace: hotTrace.filter((_, i) => i % 4 === 0),
};
for (const c of started) c.kill('SIGKILL');
process.stdout.write(`${JSON.stringify(out)}\n`);
process.exit(0);
