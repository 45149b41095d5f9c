// `numakit stat --procs`: processes ranked by memory remote from where they run, with their
// locality, where they ran, memory per node, allowed CPUs/nodes and memory policies. Pure.
import { formatCpuList } from '../model/cpuset.js';
import type { ProcessSample } from '../model/stat.js';
import type { RankedProcess } from '../policy/locality.js';
import { formatBytes, renderTable } from './units.js';
import type { AccessLocality } from '../model/access_locality.js';
import { formatAccess } from '../policy/access_locality.js';

function perNode(p: ProcessSample): string {
  if (p.memory.kind !== 'ok') return 'no permission';
  return Object.entries(p.memory.nodes)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([n, m]) => `${n}:${formatBytes(m.totalBytes).replace(' ', '')}`)
    .join(' ');
}

function ranOn(p: ProcessSample): string {
  const e = Object.entries(p.cpuNodes)
    .filter(([, s]) => s > 0)
    .sort(([a], [b]) => Number(a) - Number(b));
  if (e.length === 0) return p.lastNodes.length === 0 ? '-' : `(${p.lastNodes.join(',')})`;
  return e.map(([n, s]) => `${n}:${s.toFixed(2)}s`).join(' ');
}

function policies(p: ProcessSample): string {
  if (p.memory.kind !== 'ok') return '-';
  return (
    Object.entries(p.memory.policies)
      .sort(([, a], [, b]) => b - a)
      .map(([k]) => k)
      .join(',') || '-'
  );
}

export function formatLocality(l: number | null): string {
  return l === null ? '-' : l.toFixed(2);
}

/** Who read /proc, for why a numa_maps could not be read. */
export type ProcReader = 'user' | 'root' | 'snapshot';

/** Why numa_maps could not be read, said truthfully for who read it. */
export function noPermissionWhy(reader: ProcReader): string {
  if (reader === 'snapshot')
    return "the snapshot was taken without permission to read these processes' numa_maps (take it as root)";
  if (reader === 'root')
    return 'the kernel refused /proc/PID/numa_maps to root too: a ptrace restriction (Yama ptrace_scope 3, a container or user namespace without CAP_SYS_PTRACE) or /proc mounted with hidepid';
  return "numa_maps of other users' processes is readable only by root or their owner (run numakit as root)";
}

/** What ACCESS means, or why no process has it (and, on the live system, why no PMU sampled it). */
function accessNote(access: ReadonlyMap<number, AccessLocality> | undefined, pmuWhy: string | undefined): string {
  const all = [...(access?.values() ?? [])];
  const pmu = pmuWhy === undefined ? '' : ` PMU sampling: not available: ${pmuWhy}.`;
  if (all.length > 0 && all.every((a) => a.kind !== 'ok')) {
    const whys = [...new Set(all.map((a) => a.why))];
    return `ACCESS: not available: ${whys.join('; ')}.${pmu}`;
  }
  const sources = new Set(all.flatMap((a) => (a.kind === 'ok' ? [a.source] : [])));
  const from = [
    sources.has('pmu') ? 'DRAM accesses sampled by the PMU (local or remote by their data source)' : '',
    sources.has('numa-faults') || sources.size === 0 ? 'NUMA-balancing faults' : '',
  ]
    .filter(Boolean)
    .join(' or ');
  return `ACCESS: share of its recent memory accesses that hit the node its thread ran on, from ${from} (- = not available).`;
}

export function renderStatProcs(
  ranked: readonly RankedProcess<ProcessSample>[],
  o: {
    windowSeconds: number;
    total: number;
    reader?: ProcReader;
    /** Access locality by pid (NUMA-balancing faults or PMU samples); absent: not read. */
    access?: ReadonlyMap<number, AccessLocality>;
    /** Why the PMU sampled nothing (live system only). */
    pmuWhy?: string;
  },
): string {
  const rows = [
    [
      'PID',
      'COMM',
      'MEMORY',
      'REMOTE',
      'LOCALITY',
      'ACCESS',
      'RAN ON (CPU s)',
      'MEMORY PER NODE',
      'POLICY',
      'CPUS',
      'MEMS',
    ],
  ];
  for (const { sample: p, locality, remoteBytes } of ranked) {
    const noPerm = p.memory.kind !== 'ok';
    rows.push([
      String(p.pid),
      p.comm,
      noPerm ? 'no permission' : formatBytes(p.memory.totalBytes),
      noPerm ? '-' : formatBytes(remoteBytes),
      formatLocality(locality),
      formatAccess(o.access?.get(p.pid)),
      ranOn(p),
      perNode(p),
      policies(p),
      p.cpusAllowed ? formatCpuList(p.cpusAllowed) : '?',
      p.memsAllowed ? formatCpuList(p.memsAllowed) : '?',
    ]);
  }
  const when =
    o.windowSeconds > 0
      ? `CPU time sampled over ${o.windowSeconds}s`
      : 'CPU time since each process started (a snapshot cannot be sampled)';
  const head = `Processes by memory remote from where they ran (${ranked.length} of ${o.total}; ${when})\n`;
  const noPerm = ranked.some((r) => r.sample.memory.kind !== 'ok')
    ? `\n"no permission": ${noPermissionWhy(o.reader ?? 'user')}.\n`
    : '';
  return `${head}${renderTable(rows)}\n${noPerm}LOCALITY: share of its memory on the nodes where it spent CPU time, weighted by that time (1 = all local); REMOTE: the rest, MEMORY x (1 - LOCALITY).\n${accessNote(o.access, o.pmuWhy)}\n`;
}
