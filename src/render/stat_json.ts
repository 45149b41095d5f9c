// `numakit stat --json`: one object with what was asked for (counters, meminfo, processes,
// ranked processes); `--watch --json` writes one such line per interval (NDJSON). Pure.
import type { AccessLocality } from '../model/access_locality.js';
import type { NodeStat, ProcessMemoryInfo, ProcessSample } from '../model/stat.js';
import type { RankedProcess } from '../policy/locality.js';

const byNode = <T>(nodes: readonly number[], f: (i: number) => T): Record<string, T> =>
  Object.fromEntries(nodes.map((n, i) => [String(n), f(i)]));

export function numastatJson(s: NodeStat): Record<string, unknown> {
  return { pageSize: s.pageSize, counters: byNode(s.nodes, (i) => s.numastat[i]) };
}

export function meminfoJson(s: NodeStat): Record<string, unknown> {
  return byNode(s.nodes, (i) => ({ meminfo: s.meminfo[i], hugePages: s.huge[i] }));
}

export function processJson(p: ProcessMemoryInfo): Record<string, unknown> {
  if (p.memory.kind !== 'ok') return { pid: p.pid, comm: p.comm, error: 'no-permission' };
  return {
    pid: p.pid,
    comm: p.comm,
    nodes: p.memory.nodes,
    totalBytes: p.memory.totalBytes,
    policies: p.memory.policies,
  };
}

/** `access`: its access locality when read (stat --procs): {local, faults, nodes, source} or {unavailable: why}. */
export function rankedJson(r: RankedProcess<ProcessSample>, access?: AccessLocality): Record<string, unknown> {
  const p = r.sample;
  const a =
    access === undefined
      ? {}
      : {
          access:
            access.kind === 'ok'
              ? { local: access.local, faults: access.faults, nodes: access.nodes, source: access.source }
              : { unavailable: access.why },
        };
  return {
    ...processJson(p),
    cmdline: p.cmdline,
    threads: p.threads,
    cpuNodes: p.cpuNodes,
    lastNodes: p.lastNodes,
    cpusAllowed: p.cpusAllowed,
    memsAllowed: p.memsAllowed,
    locality: r.locality,
    remoteBytes: r.remoteBytes,
    windowSeconds: p.windowSeconds,
    ...a,
  };
}

export function renderStatJson(parts: Record<string, unknown>): string {
  return `${JSON.stringify({ schemaVersion: 1, ...parts }, null, 2)}\n`;
}
