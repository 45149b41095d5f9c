// The numbers the process rules read from a sampled process: memory per node, where it runs,
// its locality (src/policy/locality.ts). Pure.
import type { ProcessPlacement } from '../../model/doctor_input.js';
import type { CpuId, NodeId } from '../../model/topology.js';
import { locality, runNodes } from '../locality.js';

export interface ProcessView {
  readonly pid: number;
  readonly comm: string;
  readonly totalBytes: number;
  readonly bytesByNode: Record<NodeId, number>;
  readonly allowedCpus: CpuId[];
  readonly cpusetCgroup: string | null;
  readonly runNodes: NodeId[];
  readonly locality: number | null;
}

/** Views of the processes whose memory could be read (no-permission ones are left out). */
export function processViews(ps: readonly ProcessPlacement[]): ProcessView[] {
  const out: ProcessView[] = [];
  for (const p of ps) {
    if (p.memory.kind !== 'ok') continue;
    out.push({
      pid: p.pid,
      comm: p.comm,
      totalBytes: p.memory.totalBytes,
      bytesByNode: Object.fromEntries(Object.entries(p.memory.nodes).map(([n, m]) => [Number(n), m.totalBytes])),
      allowedCpus: [...(p.cpusAllowed ?? [])],
      cpusetCgroup: p.cpusetCgroup,
      runNodes: runNodes(p),
      locality: locality(p),
    });
  }
  return out;
}
