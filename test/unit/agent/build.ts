// Builders for the agent's policy tables: nodes and processes as plain data.
import type { NodeView, PolicyOptions, ProcessView } from '../../../src/policy/agent/types.js';
import { DEFAULT_POLICY } from '../../../src/policy/agent/types.js';

export const MiB = 1024 * 1024;
export const GiB = 1024 * MiB;

/** `count` nodes with `cpusPer` CPUs each (ids consecutive), 10/21 distances unless given. */
export function nodes(
  count: number,
  o: { cpusPer?: number; freeGiB?: number; idle?: number[]; memoryOnly?: number[]; distances?: number[][] } = {},
): NodeView[] {
  const per = o.cpusPer ?? 2;
  let next = 0;
  return Array.from({ length: count }, (_, id) => {
    const memOnly = o.memoryOnly?.includes(id) ?? false;
    const cpus = memOnly ? [] : Array.from({ length: per }, () => next++);
    const row = o.distances?.[id] ?? Array.from({ length: count }, (_, j) => (j === id ? 10 : 21));
    return {
      id,
      cpus,
      freeBytes: (o.freeGiB ?? 8) * GiB,
      idleCpus: memOnly ? 0 : (o.idle?.[id] ?? per),
      distances: Object.fromEntries(row.map((d, j) => [String(j), d])),
    };
  });
}

export interface ProcSpec {
  pid?: number;
  comm?: string;
  cmdline?: string;
  /** Node -> MiB of memory. */
  mem: Record<number, number>;
  /** Node -> CPUs used over the window (1 = one CPU busy). */
  cpu: Record<number, number>;
  threads?: number;
  cpusAllowed?: number[] | null;
  cpusPermitted: number[];
  agentCpus?: number[] | null;
  policies?: Record<string, number>;
  memsAllowed?: number[] | null;
  /** Per thread: its CPUs used over the window and the node it ran on (cpu per node is then their sum). */
  threadUse?: { tid: number; cpu: number; node: number }[];
}

export function proc(s: ProcSpec): ProcessView {
  if (s.threadUse) {
    const cpu: Record<number, number> = {};
    for (const t of s.threadUse) cpu[t.node] = (cpu[t.node] ?? 0) + t.cpu;
    s = { ...s, cpu };
  }
  const window = 5;
  const nodesMem = Object.fromEntries(
    Object.entries(s.mem).map(([n, m]) => [
      n,
      { hugeBytes: 0, heapBytes: m * MiB, stackBytes: 0, privateBytes: 0, totalBytes: m * MiB },
    ]),
  );
  const total = Object.values(s.mem).reduce((a, b) => a + b, 0) * MiB;
  const cpu = Object.values(s.cpu).reduce((a, b) => a + b, 0);
  return {
    pid: s.pid ?? 100,
    comm: s.comm ?? 'work',
    cmdline: s.cmdline ?? 'work --busy',
    rssBytes: total,
    cpu,
    cpusAllowed: s.cpusAllowed === undefined ? s.cpusPermitted : s.cpusAllowed,
    cpusPermitted: s.cpusPermitted,
    agentCpus: s.agentCpus ?? null,
    threads: s.threads ?? 1,
    memory: { kind: 'ok', nodes: nodesMem, totalBytes: total, policies: s.policies ?? { default: total } },
    cpuNodes: Object.fromEntries(Object.entries(s.cpu).map(([n, c]) => [n, c * window])),
    lastNodes: Object.keys(s.cpu).map(Number),
    memsAllowed: s.memsAllowed ?? null,
    windowSeconds: window,
    ...(s.threadUse
      ? {
          threadUse: s.threadUse.map((t) => ({ tid: t.tid, seconds: t.cpu * window, node: t.node })),
          threads: s.threadUse.length,
        }
      : {}),
  };
}

export function opts(o: Partial<PolicyOptions> = {}): PolicyOptions {
  return { ...DEFAULT_POLICY, ...o };
}
