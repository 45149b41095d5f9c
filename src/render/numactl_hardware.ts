// `numactl --hardware`, byte for byte (numactl.c: hardware(), print_node_cpus(),
// print_distances(); sizes are MemTotal/MemFree of nodeN/meminfo >> 20 "MB").
import { formatCpuList } from '../model/cpuset.js';
import type { Topology } from '../model/topology.js';

function fmtMem(bytes: number | null): string {
  return bytes === null ? '<not available>' : `${Math.floor(bytes / (1024 * 1024))} MB`;
}

const d3 = (n: number) => String(n).padStart(3);

export function renderNumactlHardware(topo: Topology): string {
  const ids = topo.nodes.map((n) => n.id);
  const out: string[] = [`available: ${ids.length} nodes (${formatCpuList(ids)})`];
  for (const n of topo.nodes) {
    out.push(`node ${n.id} cpus:${n.cpus.map((c) => ` ${c}`).join('')}`);
    out.push(`node ${n.id} size: ${fmtMem(n.memTotalBytes)}`);
    out.push(`node ${n.id} free: ${fmtMem(n.memFreeBytes)}`);
  }
  const first = topo.nodes[0];
  if (first === undefined || Object.keys(first.distances).length === 0) {
    out.push('No distance information available.');
  } else {
    out.push('node distances:');
    out.push(`node ${ids.map((i) => `${d3(i)} `).join('')}`);
    for (const n of topo.nodes) {
      out.push(`${d3(n.id)}: ${ids.map((k) => `${d3(n.distances[k] ?? 0)} `).join('')}`);
    }
  }
  return out.join('\n') + '\n';
}
