// The drill-down of `numakit top` for one process: its cgroup, each thread with the CPU it last
// ran on and that CPU's node, and its mappings with the memory each has on each node (numa_maps).
// Reads only: the process may be gone (null) or another user's (mappings unknown).
import type { DetailMapping, DetailThread, ProcessDetail } from '../model/process_detail.js';
import type { Topology } from '../model/topology.js';
import { parseProcCgroup } from '../sysfs/proc_cgroup.js';
import { listTids } from '../sysfs/proc_list.js';
import { numaMapsPath, readNumaMapsText, scanNumaMaps } from '../sysfs/proc_numa_maps.js';
import { readProcStat, readTaskStat, CLOCK_TICKS_PER_SECOND } from '../sysfs/proc_task_stat.js';
import { parseOrWarn, readParsed } from '../sysfs/read_parsed.js';
import type { SysRoot } from '../sysfs/root.js';

/** The cgroup path of a process (v2, else v1's cpuset or memory hierarchy); null when unknown. */
export function readCgroupPath(root: SysRoot, pid: number): string | null {
  const p = readParsed(root, `proc/${pid}/cgroup`, parseProcCgroup);
  return p === null ? null : (p.v2 ?? p.cpusetV1 ?? p.memoryV1);
}

function mappingWhat(words: readonly string[]): string {
  const file = words.find((w) => w.startsWith('file='));
  if (file !== undefined) return file.slice(5);
  return words.find((w) => w === 'heap' || w === 'stack' || w.startsWith('huge')) ?? 'anon';
}

function readMappings(root: SysRoot, pid: number): { mappings: DetailMapping[] | null; why: string } {
  const r = readNumaMapsText(root, pid);
  if (!r.ok) return { mappings: null, why: r.reason };
  const out: DetailMapping[] = [];
  const ok = parseOrWarn(root, numaMapsPath(pid), r.text, (text) =>
    scanNumaMaps(text, (m) => {
      const bytesPerPage = (m.pageKb ?? 4) * 1024;
      const nodes: Record<string, number> = {};
      let total = 0;
      for (let i = 0; i < m.pairs.length; i += 2) {
        const b = m.pairs[i + 1]! * bytesPerPage;
        nodes[m.pairs[i]!] = (nodes[m.pairs[i]!] ?? 0) + b;
        total += b;
      }
      if (total > 0)
        out.push({
          address: m.words[0]!,
          what: mappingWhat(m.words),
          policy: m.words[1] ?? '',
          nodes,
          totalBytes: total,
        });
    }),
  );
  if (ok === null) return { mappings: null, why: 'unparseable' };
  return { mappings: out.sort((a, b) => b.totalBytes - a.totalBytes), why: '' };
}

/**
 * For snapshots: the files of the drill-down the process sampler does not read (its stat and
 * cgroup; threads and numa_maps the sampler reads), so that top drills into a snapshot's process.
 */
export function readDetailFiles(root: SysRoot, pid: number): void {
  readProcStat(root, pid);
  readCgroupPath(root, pid);
}

export function readProcessDetail(root: SysRoot, pid: number, topology: Topology): ProcessDetail | null {
  const stat = readProcStat(root, pid);
  if (stat === null) return null;
  const nodeOf = new Map(topology.cpus.map((c) => [c.id, c.node]));
  const threads: DetailThread[] = [];
  for (const tid of listTids(root, pid) ?? []) {
    const t = readTaskStat(root, pid, tid);
    if (t === null) continue; // exited since the listing
    threads.push({
      tid,
      comm: t.comm,
      state: t.state,
      cpu: t.processor,
      node: nodeOf.get(t.processor) ?? null,
      cpuSeconds: t.cpuTicks / CLOCK_TICKS_PER_SECOND,
    });
  }
  const { mappings, why } = readMappings(root, pid);
  return { pid, comm: stat.comm, cgroup: readCgroupPath(root, pid), threads, mappings, mappingsWhy: why };
}
