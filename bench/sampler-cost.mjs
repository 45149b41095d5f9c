#!/usr/bin/env node
// Cost of the one process sampler (issue 23) against a baseline build, in the same run: the
// baseline is REF (default 0df04de, before it) checked out with `git worktree` in a temp dir and
// built there (tsc only; node_modules is this checkout's). Three commands a user runs, on every
// shipped example with processes and on a generated capture of --procs processes (default 10,000;
// deterministic: the same tree every run):
//   stat --procs                 one pass over every process (numa_maps of each with memory)
//   serve, one scrape of /metrics   (the server started once per build; --scrapes scrapes each)
//   agent --advise --once        a baseline pass and one pass over a 100 ms window
// Each is measured in CPU time (user + system, 10 ms ticks: the command's as a waited-for child,
// the server's own for a scrape; wall time on a shared, loaded machine says more about the
// neighbours), the two builds alternating, --rounds rounds; the median of each is printed with
// the ratio new / baseline (under 1: cheaper than before). The outputs of stat --procs
// of the two builds are compared too (same processes, same numbers).
//   npm run build && node bench/sampler-cost.mjs [--base REF] [--procs N] [--rounds N] [--scrapes N]
//                                                [--cases stat,agent,serve]
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const argv = process.argv;
const opt = (name, dflt) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : dflt);
const base = opt('--base', '0df04de');
const nprocs = Number(opt('--procs', 10000));
const rounds = Number(opt('--rounds', 3));
const scrapes = Number(opt('--scrapes', 20));
/** Which of stat, agent, serve to run (comma-separated; default all). */
const only = new Set(opt('--cases', 'stat,agent,serve').split(','));
const repo = fileURLToPath(new URL('..', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'numakit-sampler-bench-'));
const children = [];
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
  spawnSync('git', ['-C', repo, 'worktree', 'remove', '--force', join(tmp, 'base')]);
  rmSync(tmp, { recursive: true, force: true });
});

/** The baseline build: REF in a worktree, compiled with this checkout's node_modules. */
function buildBase() {
  const dir = join(tmp, 'base');
  execFileSync('git', ['-C', repo, 'worktree', 'add', '--detach', dir, base], { stdio: 'ignore' });
  symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'));
  execFileSync(process.execPath, [join(repo, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')], {
    stdio: 'inherit',
  });
  for (const f of ['scripts/gen-share.mjs', 'scripts/copy-web.mjs'])
    if (existsSync(join(dir, f))) execFileSync(process.execPath, [join(dir, f)], { cwd: dir, stdio: 'ignore' });
  return join(dir, 'dist/cli/bin.js');
}

/** A small deterministic generator (xorshift), so the capture is the same every run. */
function rng(seed) {
  let x = seed;
  return (n) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
}

/**
 * A capture of `n` processes on the epyc-nps4 example's machine (4 nodes, 64 CPUs): 1 in 10 a
 * kernel thread, the others 1-8 threads, 1-64 MiB resident spread over the nodes, CPU ticks and
 * last CPUs at random (deterministic).
 */
function generate(n) {
  const dir = join(tmp, `synth-${n}`);
  cpSync(join(repo, 'examples/epyc-nps4'), dir, { recursive: true });
  const r = rng(23);
  const tail = '18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 17';
  for (let i = 0; i < n; i++) {
    const pid = 1000 + i;
    const p = join(dir, 'proc', String(pid));
    mkdirSync(join(p, 'task'), { recursive: true });
    const kernel = i % 10 === 0;
    const threads = kernel ? 1 : 1 + r(8);
    const pages = kernel ? 0 : 256 * (1 + r(64));
    const comm = kernel ? `kworker/${i}` : `app${i % 97}`;
    const statLine = (id, ticks, cpu) =>
      `${id} (${comm}) S 1 ${pid} ${pid} 0 -1 4194304 100 0 0 0 ${ticks} ${ticks >> 2} 0 0 20 0 ${threads} 0 ${100 + i} ${kernel ? 0 : pages * 4096 * 4} ${pages} ${tail} ${cpu} 0 0 0 0 0\n`;
    let total = 0;
    for (let t = 0; t < threads; t++) {
      const tid = t === 0 ? pid : 100000 + i * 8 + t;
      const ticks = r(5000);
      total += ticks;
      mkdirSync(join(p, 'task', String(tid)));
      writeFileSync(join(p, 'task', String(tid), 'stat'), statLine(tid, ticks, r(64)));
    }
    writeFileSync(join(p, 'stat'), statLine(pid, total, r(64)));
    writeFileSync(
      join(p, 'status'),
      `Name:\t${comm}\nState:\tS (sleeping)\nTgid:\t${pid}\nPid:\t${pid}\n${kernel ? '' : `VmRSS:\t${pages * 4} kB\n`}Threads:\t${threads}\nCpus_allowed_list:\t0-63\nMems_allowed_list:\t0-3\n`,
    );
    writeFileSync(join(p, 'cmdline'), kernel ? '' : `/usr/bin/${comm}\0--serve\0`);
    writeFileSync(join(p, 'comm'), `${comm}\n`);
    const maps = [];
    if (!kernel) {
      const split = [r(pages), 0, 0, 0];
      split[1] = r(pages - split[0] + 1);
      split[2] = r(pages - split[0] - split[1] + 1);
      split[3] = pages - split[0] - split[1] - split[2];
      maps.push(`00400000 default file=/usr/bin/${comm} mapped=64 N0=64 kernelpagesize_kB=4`);
      const nodes = split.map((v, k) => (v > 0 ? ` N${k}=${v}` : '')).join('');
      maps.push(`7f0000000000 default heap anon=${pages} dirty=${pages}${nodes} kernelpagesize_kB=4`);
      maps.push('7ffc00000000 default stack anon=8 dirty=8 N0=8 kernelpagesize_kB=4');
    }
    writeFileSync(join(p, 'numa_maps'), maps.length ? `${maps.join('\n')}\n` : '');
  }
  return dir;
}

/** utime + stime of a process in ms; with 'self', cutime + cstime: its waited-for children's. */
function cpuMs(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const w = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return pid === 'self' ? (Number(w[13]) + Number(w[14])) * 10 : (Number(w[11]) + Number(w[12])) * 10;
}

function timeRun(bin, args) {
  const t0 = cpuMs('self');
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const ms = cpuMs('self') - t0;
  if (r.status !== 0) throw new Error(`${bin} ${args.join(' ')}: exit ${r.status}: ${r.stderr.slice(0, 500)}`);
  return ms;
}

function startServe(bin, root) {
  const c = spawn(process.execPath, [bin, '--root', root, 'serve', '--listen', '127.0.0.1:0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(c);
  return new Promise((resolve, reject) => {
    let log = '';
    const t = setTimeout(() => reject(new Error(`serve did not start: ${log}`)), 300_000);
    const on = (d) => {
      log += d;
      const m = /127\.0\.0\.1:(\d+)\//.exec(log);
      if (m) {
        clearTimeout(t);
        resolve({ pid: c.pid, url: `http://127.0.0.1:${m[1]}/metrics`, stop: () => c.kill('SIGTERM') });
      }
    };
    c.stdout.on('data', on);
    c.stderr.on('data', on);
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Scrapes until the server's first doctor run (on a worker thread, over every process) is done:
 * its CPU would otherwise fall into whichever scrapes it overlaps.
 */
async function settled(srv) {
  for (let i = 0; i < 600; i++) {
    const text = await (await fetch(srv.url)).text();
    if (text.includes('numakit_doctor_last_run_timestamp_seconds ')) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${srv.url}: no doctor run in 5 minutes`);
}

async function scrapeMs(srv) {
  const t0 = cpuMs(srv.pid);
  await (await fetch(srv.url)).text();
  return cpuMs(srv.pid) - t0;
}

/** This checkout's build, copied (a rebuild while the bench runs does not mix builds). */
function copyNew() {
  const dir = join(tmp, 'new');
  mkdirSync(dir);
  cpSync(join(repo, 'dist'), join(dir, 'dist'), { recursive: true });
  cpSync(join(repo, 'package.json'), join(dir, 'package.json'));
  symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'));
  return join(dir, 'dist/cli/bin.js');
}

const builds = { new: copyNew(), base: buildBase() };
const roots = [
  ...readdirSync(join(repo, 'examples'))
    .filter((e) => JSON.parse(readFileSync(join(repo, 'examples', e, 'manifest.json'), 'utf8')).processes === true)
    .map((e) => [e, join(repo, 'examples', e)]),
  [`synthetic ${nprocs} processes`, generate(nprocs)],
];
console.log(`sampler cost: this build vs ${base}, ${rounds} rounds, median CPU ms (ratio < 1: cheaper)`);
const rows = [];
const sameOutput = [];
for (const [name, root] of roots) {
  const out = (bin) =>
    spawnSync(process.execPath, [bin, '--root', root, 'stat', '--procs', '--json', '--top', '100000'], {
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    }).stdout;
  if (only.has('stat'))
    sameOutput.push(
      `${name}: stat --procs --json output ${out(builds.base) === out(builds.new) ? 'the same' : 'DIFFERENT'}`,
    );
  const all = {
    'stat --procs': (bin) => timeRun(bin, ['--root', root, 'stat', '--procs', '--json']),
    'agent --advise --once': (bin) =>
      timeRun(bin, ['--root', root, 'agent', '--advise', '--once', '--interval', '100ms']),
  };
  const cases = Object.entries(all).filter(([what]) => only.has(what.split(' ')[0]));
  for (const [what, run] of cases) {
    const ms = { base: [], new: [] };
    for (let i = 0; i < rounds; i++) for (const b of ['base', 'new']) ms[b].push(run(builds[b]));
    rows.push([name, what, median(ms.base), median(ms.new)]);
  }
  if (!only.has('serve')) continue;
  const servers = { base: await startServe(builds.base, root), new: await startServe(builds.new, root) };
  await Promise.all([settled(servers.base), settled(servers.new)]);
  const ms = { base: [], new: [] };
  for (let i = 0; i < scrapes; i++) for (const b of ['base', 'new']) ms[b].push(await scrapeMs(servers[b]));
  servers.base.stop();
  servers.new.stop();
  // Scrapes cost a few 10 ms ticks each: the mean over all of them, not a median of ticks.
  const mean = (xs) => xs.reduce((x, y) => x + y, 0) / xs.length;
  rows.push([name, 'serve scrape (mean)', mean(ms.base), mean(ms.new)]);
}
for (const [name, what, b, n] of rows)
  console.log(
    `${name.padEnd(28)} ${what.padEnd(22)} base ${b.toFixed(0).padStart(7)}  new ${n.toFixed(0).padStart(7)}  ratio ${(n / b).toFixed(2)}`,
  );
for (const line of sameOutput) console.log(line);
process.exit(0);
