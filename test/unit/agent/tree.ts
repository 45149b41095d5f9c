// A fake machine for the agent's loop tests: a synthetic sys/ tree (4 nodes x 1 CPU) plus a
// /proc that the test rewrites between passes (CPU ticks advance, threads move, pages move),
// and fake ThreadOps that change that /proc as the kernel would (affinity, migrate_pages).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ThreadOps } from '../../../src/agent/ops.js';
import { procThreads } from '../../../src/agent/ops.js';
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
  threads: { tid: number; ticks: number; cpu: number; start: number; cpus: number[] }[];
}

const put = (root: string, rel: string, text: string) => {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), text);
};

function statLine(tid: number, comm: string, t: FakeProc['threads'][number]): string {
  const f = Array.from({ length: 50 }, () => '0'); // f[i] is field i + 3
  f[0] = 'R';
  f[14 - 3] = String(t.ticks);
  f[22 - 3] = String(t.start);
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
  readonly failNext: Partial<Record<'setAffinity' | 'migratePages', string>> = {};

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

  /** Advances time: every thread runs `seconds` on its CPU; `busyCpus` are kept busy by others. */
  tick(seconds: number, busyCpus: number[] = []): void {
    const ticks = seconds * 100;
    this.total += ticks;
    for (const p of this.procs.values()) for (const t of p.threads) {
      t.ticks += ticks;
      this.busy[t.cpu]! += ticks;
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

  write(): void {
    put(this.dir, 'proc/stat', `cpu 0 0 0 0\n${this.busy.map((b, c) => `cpu${c} ${b} 0 0 ${this.total - b} 0 0 0 0 0 0`).join('\n')}\n`);
    for (const p of this.procs.values()) {
      const base = `proc/${p.pid}`;
      const total = Object.values(p.pages).reduce((a, b) => a + b, 0);
      const main = p.threads[0]!;
      put(this.dir, `${base}/status`, `Name:\t${p.comm}\nState:\tR (running)\nThreads:\t${p.threads.length}\nVmRSS:\t${total * 4} kB\nCpus_allowed_list:\t${formatCpuList(main.cpus)}\nMems_allowed_list:\t0-3\n`);
      put(this.dir, `${base}/statm`, `${total + 100} ${total} 50 10 0 ${total} 0\n`);
      put(this.dir, `${base}/cmdline`, `${p.cmdline.replace(/ /g, '\0')}\0`);
      const nodes = Object.entries(p.pages).filter(([, n]) => n > 0).map(([n, c]) => `N${n}=${c}`).join(' ');
      const files = Object.entries(p.filePages ?? {}).map(([n, c]) => `N${n}=${c}`).join(' ');
      const fileLine = files === '' ? '' : `55aa00000000 default file=/usr/bin/node mapped=1 mapmax=3 ${files} kernelpagesize_kB=4\n`;
      put(this.dir, `${base}/numa_maps`, `${fileLine}7f0000000000 ${p.policy ?? 'default'} anon=${total} dirty=${total} ${nodes} kernelpagesize_kB=4\n`);
      rmSync(join(this.dir, base, 'task'), { recursive: true, force: true });
      for (const t of p.threads) put(this.dir, `${base}/task/${t.tid}/stat`, statLine(t.tid, p.comm, t));
    }
  }

  private thread(tid: number) {
    for (const p of this.procs.values()) for (const t of p.threads) if (t.tid === tid) return { p, t };
    return null;
  }

  private maybeFail(op: 'setAffinity' | 'migratePages'): void {
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
    migratePages: (pid, from, to) => {
      this.calls.push(`migratePages ${pid} ${from.join(',')} -> ${to.join(',')}`);
      this.maybeFail('migratePages');
      const p = this.procs.get(pid);
      if (p === undefined) throw Object.assign(new Error('gone'), { code: 'ESRCH' });
      for (const n of from) {
        p.pages[to[0]!] = (p.pages[to[0]!] ?? 0) + (p.pages[n] ?? 0);
        p.pages[n] = 0;
      }
      this.write();
      return 0;
    },
  };

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A busy single-thread process: `mib` MiB on `memNode`, running on CPU `cpu`. */
export function busy(pid: number, comm: string, mib: number, memNode: number, cpu: number, extra: Partial<FakeProc> = {}): FakeProc {
  return { pid, comm, cmdline: `${comm} --spin`, pages: { [memNode]: mib * 256 }, threads: [{ tid: pid, ticks: 0, cpu, start: 1000 + pid, cpus: [0, 1, 2, 3] }], ...extra };
}
