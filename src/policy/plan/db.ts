// mysql and postgres: one server, placed by the size of its buffer pool against node memory:
//   pool <= 60 % of the node  -> bind (CPUs and memory of the node)
//   pool <= 85 % of the node  -> preferred (local first, spills instead of OOM; AutoNUMA may help)
//   larger                    -> interleave over the CPU nodes' memory (innodb_numa_interleave)
// via systemd NUMAPolicy=/NUMAMask=/CPUAffinity= (>= 243) or numactl in ExecStart= (older).
import { UsageError } from '../../model/errors.js';
import { chooseNode } from './choose_node.js';
import { num } from './machine.js';
import type { DecisionBase, Derivation, MachineShare } from './types.js';
import { planTuning } from './tuning.js';

export type MemPolicy = 'bind' | 'preferred' | 'interleave';

export interface DbOptions {
  readonly engine: 'mysql' | 'postgres';
  readonly poolBytes: number;
  readonly node?: number;
  readonly systemdVersion: number;
  readonly unit: string;
  /** Full server command line, needed only when ExecStart= must be replaced (systemd < 243). */
  readonly exec: string[] | null;
  readonly hugePages: boolean;
}

export interface DbDecision extends DecisionBase {
  readonly kind: 'db';
  readonly options: DbOptions;
  readonly policy: MemPolicy;
  readonly node: number;
  readonly mask: string;
  readonly cpuList: string | null;
  readonly poolGiB: number;
  /** 2 MiB pages per node (node -> count) when --huge-pages. */
  readonly hugePages: { node: number; pages: number }[];
}

export const BIND_MAX = 0.6;
export const PREFERRED_MAX = 0.85;
const GiB = 1024 ** 3;

function hugePagePlan(nodes: number[], poolBytes: number, d: Derivation[]): { node: number; pages: number }[] {
  const raw = Math.ceil(poolBytes / (2 * 1024 * 1024));
  const total = Math.ceil(raw * 1.02);
  const per = Math.ceil(total / nodes.length);
  d.push({ what: '2 MiB huge pages', formula: `${raw} pages for the pool + 2% = ${total}${nodes.length > 1 ? `, / ${nodes.length} nodes = ${per} each` : ''}`, value: `${total}` });
  return nodes.map((node) => ({ node, pages: per }));
}

export function planDb(m: MachineShare, o: DbOptions): DbDecision {
  const d: Derivation[] = [];
  const notes = [...m.notes];
  const poolGiB = o.poolBytes / GiB;
  const cpuMem = m.usable.reduce((a, s) => a + s.memGiB, 0);
  if (poolGiB > cpuMem * 0.9) throw new UsageError(`--buffer-pool ${num(poolGiB)} GiB is larger than 90% of this machine's memory on CPU nodes (${num(cpuMem)} GiB)`);
  const s = chooseNode(m, o.node, d);
  const ratio = poolGiB / s.memGiB;
  const policy: MemPolicy = ratio <= BIND_MAX ? 'bind' : ratio <= PREFERRED_MAX ? 'preferred' : 'interleave';
  const rule = policy === 'bind' ? `<= ${BIND_MAX} -> bind` : policy === 'preferred' ? `> ${BIND_MAX}, <= ${PREFERRED_MAX} -> preferred` : `> ${PREFERRED_MAX} -> interleave`;
  d.push({ what: 'memory policy', formula: `pool ${num(poolGiB)} GiB / node ${s.node} ${num(s.memGiB)} GiB = ${num(ratio)} ${rule}`, value: policy });
  const nodes = policy === 'interleave' ? m.usable.map((u) => u.node) : [s.node];
  const mask = nodes.join(',');
  if (policy === 'interleave' && m.memoryNodes.length > m.usable.length) notes.push('Memory-only nodes are left out of the interleave mask: they are farther from every CPU.');
  if (m.usable.length === 1) notes.push('This machine has one usable NUMA node: the policy keeps memory local but there is no remote memory to avoid.');
  if (o.systemdVersion < 243) notes.push(`systemd ${o.systemdVersion} has no NUMAPolicy= (added in 243): the drop-in replaces ExecStart= with a numactl prefix.`);
  return {
    kind: 'db', machine: m, tuning: planTuning('database', m), options: o, policy, node: s.node, mask, cpuList: policy === 'bind' ? s.cpuList : null, poolGiB,
    hugePages: o.hugePages ? hugePagePlan(nodes, o.poolBytes, d) : [], derivations: d, notes,
  };
}
