// `numakit stat --cgroup [PATH]`: cgroups ranked by the remote memory of their processes, each
// with its memory per node (memory.numa_stat), the CPUs and memory nodes its cpuset allows and
// its locality; with PATH, that cgroup in full with its processes. Text and JSON. Pure.
import { formatCpuList } from '../model/cpuset.js';
import { kubeLabels, type CgroupFacts } from '../model/cgroup_numa.js';
import type { CgroupRow } from '../policy/cgroup_rank.js';
import { formatLocality } from './stat_procs.js';
import { formatBytes, renderTable } from './units.js';

const short = (b: number) => formatBytes(b).replace(' ', '');

function perNode(f: CgroupFacts): string {
  if (f.numaStat === null) return 'no memory.numa_stat';
  const e = Object.entries(f.numaStat).filter(([, m]) => m.total > 0);
  return e.length === 0 ? '-' : e.map(([n, m]) => `${n}:${short(m.total)}`).join(' ');
}

const list = (ids: readonly number[] | null) => (ids === null ? '-' : formatCpuList([...ids]));

export function renderCgroupTable(rows: readonly CgroupRow[], top: number): string {
  if (rows.length === 0) return 'no cgroup holds a process with memory\n';
  const head = ['PROCS', 'MEMORY', 'REMOTE', 'LOCALITY', 'CPUS', 'MEMS', 'PER NODE (numa_stat)', 'CGROUP'];
  const body = rows
    .slice(0, top)
    .map((r) => [
      String(r.processes.length),
      short(r.memoryBytes),
      short(r.remoteBytes),
      formatLocality(r.locality),
      list(r.facts.cpus),
      list(r.facts.mems),
      perNode(r.facts),
      r.facts.path,
    ]);
  const more = rows.length > top ? `\n(${rows.length - top} more cgroups; --top N shows more)` : '';
  return `${renderTable([head, ...body])}${more}\n`;
}

/** One cgroup in full: its facts, memory per node by type, and its processes. */
export function renderCgroupDetail(r: CgroupRow): string {
  const f = r.facts;
  const k = kubeLabels(f.path);
  const lines = [
    `cgroup ${f.path} (v${f.version})${k ? `: pod ${k.pod} (${k.qos})${k.container ? `, container ${k.container}` : ''}` : ''}`,
    `  CPUs allowed: ${list(f.cpus)}; memory nodes allowed: ${list(f.mems)}`,
    `  processes: ${r.processes.length}, memory ${short(r.memoryBytes)}, remote ${short(r.remoteBytes)}, locality ${formatLocality(r.locality)}`,
  ];
  if (f.numaStat === null) lines.push('  memory per node: no memory.numa_stat (memory controller off for it)');
  else {
    lines.push('  memory per node (memory.numa_stat):');
    for (const [n, m] of Object.entries(f.numaStat))
      lines.push(`    node ${n}: ${short(m.total)} (anon ${short(m.anon)}, file ${short(m.file)})`);
  }
  if (r.processes.length > 0) {
    const rows = r.processes.map((p) => [
      String(p.sample.pid),
      p.sample.comm,
      p.sample.memory.kind === 'ok' ? short(p.sample.memory.totalBytes) : 'no permission',
      short(p.remoteBytes),
      formatLocality(p.locality),
    ]);
    lines.push('', renderTable([['PID', 'NAME', 'MEMORY', 'REMOTE', 'LOCALITY'], ...rows], { indent: '  ' }));
  }
  return `${lines.join('\n')}\n`;
}

export function cgroupJson(r: CgroupRow): object {
  return {
    path: r.facts.path,
    version: r.facts.version,
    kubernetes: kubeLabels(r.facts.path),
    cpus: r.facts.cpus,
    mems: r.facts.mems,
    numaStat: r.facts.numaStat,
    memoryBytes: r.memoryBytes,
    remoteBytes: r.remoteBytes,
    locality: r.locality,
    processes: r.processes.map((p) => ({
      pid: p.sample.pid,
      comm: p.sample.comm,
      memoryBytes: p.sample.memory.kind === 'ok' ? p.sample.memory.totalBytes : null,
      remoteBytes: p.remoteBytes,
      locality: p.locality,
    })),
  };
}
