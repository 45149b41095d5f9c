// A fake machine for the agent's loop tests: a synthetic sys/ tree (4 nodes x 1 CPU) plus a
// /proc that the test rewrites between passes (CPU ticks advance, threads move, pages move),
// and fake ThreadOps that change that /proc as the kernel would (affinity, move_pages: each
// process has one anonymous mapping at ANON_BASE whose pages each sit on a node). Faults can be
// injected: an errno for the next call of an op, pages that answer EBUSY, transparent huge
// pages (tail pages answer EBUSY and move with their head), a node with little free memory
// (ENOMEM), a process that exits after N move_pages calls.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach } from 'node:test';
import type { ThreadOps } from '../../../src/agent/ops.js';
import { procThreads } from '../../../src/agent/ops.js';
import { readAnonRanges } from '../../../src/discover/anon_ranges.js';
import { formatCpuList } from '../../../src/model/cpuset.js';
import { openRoot, type SysRoot } from '../../../src/sysfs/root.js';
import { writeSynthMachine } from '../../fixtures/synth.js';

export interface FakeProc {
  pid: number;
  comm: string;
  cmdline: string;
  /** Node -> pages (4 kB) of anonymous memory. */
  pages: Record<number, number>;
  /** Node -> pages of a shared file mapping (program text). */
  filePages?: Record<number, number>;
  /** Set policy of the mapping ("bind:1"); default when absent. */
  policy?: string;
  /** `busy`: share of each tick the thread runs (default 1). */
  threads: { tid: number; ticks: number; cpu: number; start: number; cpus: number[]; busy?: number }[];
  /** Pages of the mapping never touched (after the touched ones): move_pages answers ENOENT. */
  untouched?: number;
  /** Transparent huge pages: groups of 512 pages that move together. */
  thp?: boolean;
  /** A kernel thread: no mm (vsize 0 in its stat). */
  kernel?: boolean;
  /**
   * Recent NUMA hinting faults by the node of the memory (node -> faults), written to its first
   * thread's /proc/PID/task/TID/sched (the node it runs on: its CPU's, one CPU a node).
   */
  faults?: Record<number, number>;
}

export const ANON_BASE = 0x7f0000000000;
const PAGE = 4096;
const ENOENT = 2;
const EFAULT = 14;
const EBUSY = 16;
const HALF = 4294967296;

const put = (root: string, rel: string, text: string) => {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), text);
};

/** A stat line: a thread's (ticks, start, cpu), or with `proc` the process's (all threads' ticks, rss, vsize). */
function statLine(
  tid: number,
  comm: string,
  t: FakeProc['threads'][number],
  proc?: { ticks: number; threads: number; rssPages: number; kernel?: boolean },
): string {
  const f = Array.from({ length: 50 }, () => '0'); // f[i] is field i + 3
  f[0] = 'R';
  f[14 - 3] = String(proc?.ticks ?? t.ticks);
  f[20 - 3] = String(proc?.threads ?? 1);
  f[22 - 3] = String(t.start);
  f[23 - 3] = proc?.kernel ? '0' : String(((proc?.rssPages ?? 0) + 100) * 4096); // vsize: 0 only for a kernel thread
  f[24 - 3] = String(proc?.rssPages ?? 0);
  f[39 - 3] = String(t.cpu);
  return `${tid} (${comm}) ${f.join(' ')}\n`;
}

export class FakeMachine {
  readonly dir = mkdtempSync(join(tmpdir(), 'numakit-agent-'));
  readonly root: SysRoot;
  readonly procs = new Map<number, FakeProc>();
  /** CPU -> busy ticks so far (idle ticks are total - busy). */
  private busy = [0, 0, 0, 0];
  private total = 0;
  readonly calls: string[] = [];
  /** errno code to throw from the next call of an op. */
  readonly failNext: Partial<Record<'setAffinity' | 'movePages', string>> = {};
  /** Page indexes (of a process's mapping) the kernel will not move: EBUSY. */
  readonly busyPages = new Set<number>();
  /** Node -> pages it can still take; absent = unlimited. */
  readonly room = new Map<number, number>();
  /** pid -> move_pages calls after which it exits (the next call answers ESRCH). */
  readonly exitAfterCalls = new Map<number, number>();
  movePagesCalls = 0;
  /** pid -> node of each page of its mapping (-1: never touched), and the counts it was built from. */
  private layouts = new Map<number, { key: string; nodes: Int8Array }>();

  constructor(numaBalancing = 1) {
    writeSynthMachine(this.dir, {
      threadsPerCore: 1,
      nodes: [0, 1, 2, 3].map((id) => ({ id, cpus: [id], memGiB: 2, freeGiB: 1.5 })),
      kernel: { numaBalancing },
    });
    this.root = openRoot(this.dir);
    this.write();
  }

  add(p: FakeProc): void {
    this.procs.set(p.pid, p);
    this.write();
  }

  /** cgroup v2 leaves: path -> its processes and cpuset (null: no cpuset controller there). */
  readonly cgroups = new Map<
    string,
    { pids: number[]; cpus: number[] | null; mems: number[] | null; cpuMax: string | null }
  >();

  /** Puts processes in a cgroup v2 leaf (the hierarchy is mounted once the first is added); `cpuMax`: its cpu.max. */
  addCgroup(
    path: string,
    pids: number[],
    cpus: number[] | null = null,
    mems: number[] | null = null,
    cpuMax: string | null = null,
  ): void {
    this.cgroups.set(path, { pids, cpus, mems, cpuMax });
    this.write();
  }

  /** kernel.numa_balancing (0: the kernel keeps no NUMA fault statistics). */
  setNumaBalancing(value: number): void {
    put(this.dir, 'proc/sys/kernel/numa_balancing', `${value}\n`);
  }

  /** Removes a cgroup leaf (its processes stay, as after a move to another cgroup). */
  removeCgroup(path: string): void {
    this.cgroups.delete(path);
    rmSync(join(this.dir, `sys/fs/cgroup${path}`), { recursive: true, force: true });
    this.write();
  }

  /** Advances time: every thread runs `seconds` on its CPU; `busyCpus` are kept busy by others. */
  tick(seconds: number, busyCpus: number[] = []): void {
    const ticks = seconds * 100;
    this.total += ticks;
    for (const p of this.procs.values())
      for (const t of p.threads) {
        t.ticks += Math.round(ticks * (t.busy ?? 1));
        this.busy[t.cpu]! += Math.round(ticks * (t.busy ?? 1));
      }
    for (const c of busyCpus) this.busy[c]! += ticks;
    this.busy = this.busy.map((b) => Math.min(b, this.total));
    this.write();
  }

  exit(pid: number): void {
    this.procs.delete(pid);
    rmSync(join(this.dir, 'proc', String(pid)), { recursive: true, force: true });
    this.write();
  }

  /** The node of each page of pid's mapping, rebuilt when a test changed its page counts. */
  layout(p: FakeProc): Int8Array {
    const key = `${JSON.stringify(p.pages)}+${p.untouched ?? 0}`;
    const cur = this.layouts.get(p.pid);
    if (cur !== undefined && cur.key === key) return cur.nodes;
    const total = Object.values(p.pages).reduce((a, b) => a + b, 0);
    const nodes = new Int8Array(total + (p.untouched ?? 0)).fill(-1);
    let i = 0;
    for (const [n, c] of Object.entries(p.pages).sort(([a], [b]) => Number(a) - Number(b)))
      nodes.fill(Number(n), i, (i += c));
    this.layouts.set(p.pid, { key, nodes });
    return nodes;
  }

  private recount(p: FakeProc, nodes: Int8Array): void {
    const pages: Record<number, number> = {};
    for (const n of nodes) if (n >= 0) pages[n] = (pages[n] ?? 0) + 1;
    p.pages = pages;
    this.layouts.set(p.pid, { key: `${JSON.stringify(p.pages)}+${p.untouched ?? 0}`, nodes });
  }

  /** Writes /proc/stat and every process's files (only `only`'s memory files when given). */
  write(only?: FakeProc): void {
    if (only !== undefined) {
      this.writeMemory(only);
      return;
    }
    put(
      this.dir,
      'proc/stat',
      `cpu 0 0 0 0\n${this.busy.map((b, c) => `cpu${c} ${b} 0 0 ${this.total - b} 0 0 0 0 0 0`).join('\n')}\n`,
    );
    this.writeCgroups();
    for (const p of this.procs.values()) {
      const base = `proc/${p.pid}`;
      const total = Object.values(p.pages).reduce((a, b) => a + b, 0);
      const main = p.threads[0]!;
      put(
        this.dir,
        `${base}/status`,
        `Name:\t${p.comm}\nState:\tR (running)\nThreads:\t${p.threads.length}\nVmRSS:\t${total * 4} kB\nCpus_allowed_list:\t${formatCpuList(main.cpus)}\nMems_allowed_list:\t0-3\n`,
      );
      put(
        this.dir,
        `${base}/stat`,
        statLine(p.pid, p.comm, main, {
          ticks: p.threads.reduce((a, t) => a + t.ticks, 0),
          threads: p.threads.length,
          rssPages: total,
          kernel: p.kernel === true,
        }),
      );
      put(this.dir, `${base}/cmdline`, `${p.cmdline.replace(/ /g, '\0')}\0`);
      this.writeMemory(p);
      rmSync(join(this.dir, base, 'task'), { recursive: true, force: true });
      for (const t of p.threads) put(this.dir, `${base}/task/${t.tid}/stat`, statLine(t.tid, p.comm, t));
      if (p.faults !== undefined) {
        const t = p.threads[0]!;
        const lines = Object.entries(p.faults).map(
          ([n, f]) => `numa_faults node=${n} task_private=${f} task_shared=0 group_private=0 group_shared=0\n`,
        );
        put(
          this.dir,
          `${base}/task/${t.tid}/sched`,
          `${p.comm} (${t.tid}, #threads: ${p.threads.length})\nnuma_scan_seq:  3\nnuma_pages_migrated:  0\ncurrent_node=${t.cpu}, numa_group_id=0\n${lines.join('')}`,
        );
      }
    }
  }

  /** The cgroup files the agent reads, from the processes in each leaf (memory.numa_stat, cpu.stat ...). */
  private writeCgroups(): void {
    if (this.cgroups.size === 0) return;
    put(this.dir, 'sys/fs/cgroup/cgroup.controllers', 'cpuset cpu io memory pids\n');
    for (const [path, cg] of this.cgroups) {
      const dir = `sys/fs/cgroup${path}`;
      const procs = cg.pids.map((pid) => this.procs.get(pid)).filter((p): p is FakeProc => p !== undefined);
      const anon: Record<number, number> = {};
      for (const p of procs)
        for (const [n, c] of Object.entries(p.pages)) anon[Number(n)] = (anon[Number(n)] ?? 0) + c * PAGE;
      const usec = procs.reduce((s, p) => s + p.threads.reduce((t, th) => t + th.ticks * 10_000, 0), 0);
      put(this.dir, `${dir}/cgroup.procs`, cg.pids.map((p) => `${p}\n`).join(''));
      put(this.dir, `${dir}/memory.current`, `${Object.values(anon).reduce((a, b) => a + b, 0)}\n`);
      put(this.dir, `${dir}/cpu.stat`, `usage_usec ${usec}\nuser_usec ${usec}\nsystem_usec 0\n`);
      put(
        this.dir,
        `${dir}/memory.numa_stat`,
        `anon ${[0, 1, 2, 3].map((n) => `N${n}=${anon[n] ?? 0}`).join(' ')}\nfile N0=0 N1=0 N2=0 N3=0\n`,
      );
      if (cg.cpus !== null) put(this.dir, `${dir}/cpuset.cpus.effective`, `${formatCpuList(cg.cpus)}\n`);
      if (cg.mems !== null) put(this.dir, `${dir}/cpuset.mems.effective`, `${formatCpuList(cg.mems)}\n`);
      if (cg.cpus !== null) put(this.dir, `${dir}/cpuset.cpus`, `${formatCpuList(cg.cpus)}\n`);
      if (cg.cpuMax !== null) put(this.dir, `${dir}/cpu.max`, `${cg.cpuMax}\n`);
      for (const pid of cg.pids) put(this.dir, `proc/${pid}/cgroup`, `0::${path}\n`);
    }
  }

  private writeMemory(p: FakeProc): void {
    const base = `proc/${p.pid}`;
    const total = Object.values(p.pages).reduce((a, b) => a + b, 0);
    const nodes = Object.entries(p.pages)
      .filter(([, n]) => n > 0)
      .map(([n, c]) => `N${n}=${c}`)
      .join(' ');
    const files = Object.entries(p.filePages ?? {})
      .map(([n, c]) => `N${n}=${c}`)
      .join(' ');
    const fileLine =
      files === '' ? '' : `55aa00000000 default file=/usr/bin/node mapped=1 mapmax=3 ${files} kernelpagesize_kB=4\n`;
    put(
      this.dir,
      `${base}/numa_maps`,
      `${fileLine}${ANON_BASE.toString(16)} ${p.policy ?? 'default'} anon=${total} dirty=${total} ${nodes} kernelpagesize_kB=4\n`,
    );
    const end = ANON_BASE + this.layout(p).length * PAGE;
    const fileMap =
      files === '' ? '' : '55aa00000000-55aa04000000 r-xp 00000000 fd:01 1234                 /usr/bin/node\n';
    put(this.dir, `${base}/maps`, `${fileMap}${ANON_BASE.toString(16)}-${end.toString(16)} rw-p 00000000 00:00 0 \n`);
  }

  private thread(tid: number) {
    for (const p of this.procs.values()) for (const t of p.threads) if (t.tid === tid) return { p, t };
    return null;
  }

  private maybeFail(op: 'setAffinity' | 'movePages'): void {
    const code = this.failNext[op];
    if (code === undefined) return;
    delete this.failNext[op];
    throw Object.assign(new Error(`${op}: fake ${code}`), { code });
  }

  readonly ops: ThreadOps = {
    threads: (pid) => procThreads(this.root, pid),
    threadStart: (pid, tid) => this.procs.get(pid)?.threads.find((t) => t.tid === tid)?.start ?? null,
    getAffinity: (tid) => {
      const x = this.thread(tid);
      if (x === null) throw Object.assign(new Error('gone'), { code: 'ESRCH' });
      return [...x.t.cpus];
    },
    setAffinity: (tid, cpus) => {
      this.calls.push(`setAffinity ${tid} ${cpus.join(',')}`);
      this.maybeFail('setAffinity');
      const x = this.thread(tid);
      if (x === null) throw Object.assign(new Error('gone'), { code: 'ESRCH' });
      x.t.cpus = [...cpus];
      if (!cpus.includes(x.t.cpu)) x.t.cpu = cpus[0]!; // the scheduler moves it at once
      this.write();
    },
    anonRanges: (pid) => readAnonRanges(this.root, pid),
    movePages: (pid, count, words, nodes, status) => this.movePages(pid, count, words, nodes, status),
  };

  private movePages(
    pid: number,
    count: number,
    words: Uint32Array,
    nodes: Int32Array | null,
    status: Int32Array,
  ): number {
    this.movePagesCalls++;
    if (nodes !== null) {
      const call = `movePages ${pid} -> ${[...new Set(nodes.subarray(0, count))].join(',')}`;
      if (this.calls.at(-1) !== call) this.calls.push(call);
    }
    this.maybeFail('movePages');
    const left = this.exitAfterCalls.get(pid);
    if (left !== undefined) {
      if (left <= 0) this.exit(pid);
      else this.exitAfterCalls.set(pid, left - 1);
    }
    const p = this.procs.get(pid);
    if (p === undefined) throw Object.assign(new Error('move_pages: No such process (ESRCH)'), { code: 'ESRCH' });
    const layout = this.layout(p);
    const movedHeads = new Set<number>();
    let full: number | null = null;
    for (let i = 0; i < count; i++) {
      const idx = (words[2 * i + 1]! * HALF + words[2 * i]! - ANON_BASE) / PAGE;
      if (!Number.isInteger(idx) || idx < 0 || idx >= layout.length) {
        status[i] = -EFAULT;
        continue;
      }
      const cur = layout[idx]!;
      if (cur < 0) status[i] = -ENOENT;
      else if (nodes !== null && p.thp && movedHeads.has(idx - (idx % 512)))
        status[i] = -EBUSY; // isolated with its head
      else if (nodes === null || cur === nodes[i]) status[i] = cur;
      else if (this.busyPages.has(idx)) status[i] = -EBUSY;
      else {
        const to = nodes[i]!;
        const group = p.thp ? [idx - (idx % 512), idx - (idx % 512) + 512] : [idx, idx + 1];
        const need = group[1]! - group[0]!;
        const room = this.room.get(to);
        if (room !== undefined && room < need) {
          full = to;
          break;
        }
        if (room !== undefined) this.room.set(to, room - need);
        for (let k = group[0]!; k < Math.min(group[1]!, layout.length); k++) if (layout[k] === cur) layout[k] = to;
        movedHeads.add(group[0]!);
        status[i] = to;
      }
    }
    this.recount(p, layout);
    this.write(p);
    if (full !== null)
      throw Object.assign(new Error(`move_pages: Cannot allocate memory (ENOMEM) on node ${full}`), { code: 'ENOMEM' });
    return 0;
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A busy single-thread process: `mib` MiB on `memNode`, running on CPU `cpu`. */
export function busy(
  pid: number,
  comm: string,
  mib: number,
  memNode: number,
  cpu: number,
  extra: Partial<FakeProc> = {},
): FakeProc {
  return {
    pid,
    comm,
    cmdline: `${comm} --spin`,
    pages: { [memNode]: mib * 256 },
    threads: [{ tid: pid, ticks: 0, cpu, start: 1000 + pid, cpus: [0, 1, 2, 3] }],
    ...extra,
  };
}

/** A clock for the mover: time passes only when it sleeps (or `cpuPerCall` ms of CPU per read of cpuMs). */
export function fakeClock(o: { cpuPerCall?: number } = {}) {
  let t = 0;
  let cpu = 0;
  const sleeps: number[] = [];
  return {
    sleeps,
    get elapsed() {
      return t;
    },
    now: () => t,
    cpuMs: () => (cpu += o.cpuPerCall ?? 0),
    sleep: async (ms: number, signal: AbortSignal) => {
      sleeps.push(ms);
      if (!signal.aborted) t += ms;
      await new Promise((r) => setImmediate(r));
    },
  };
}

/**
 * Registers hooks (in the calling file or describe block) that give each test a fresh FakeMachine
 * and agent state directory, handed to `use`, and remove both after the test.
 */
export function eachWithFakeMachine(use: (m: FakeMachine, stateDir: string) => void): void {
  let m: FakeMachine | null = null;
  let stateDir: string | null = null;
  beforeEach(() => {
    m = new FakeMachine();
    stateDir = mkdtempSync(join(tmpdir(), 'numakit-agent-state-'));
    use(m, stateDir);
  });
  afterEach(() => {
    m?.cleanup();
    if (stateDir !== null) rmSync(stateDir, { recursive: true, force: true });
    m = stateDir = null;
  });
}
