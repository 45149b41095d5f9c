// redis: one instance per NUMA node (or one per physical core with --per-core), each pinned with
// taskset to its CPUs and numactl --membind to its node (field report 001), on its own port.
// maxmemory = node memory x 0.45 / instances on the node: a BGSAVE fork can double the resident
// set through copy-on-write, so half the node is the ceiling and 10 % of that stays for the OS.
import { UsageError } from '../../model/errors.js';
import { formatCpuList } from '../../model/cpuset.js';
import { num } from './machine.js';
import type { DecisionBase, Derivation, MachineShare } from './types.js';
import { planTuning } from './tuning.js';

export const REDIS_MEMORY_FRACTION = 0.45;

export interface RedisOptions {
  readonly perCore: boolean;
  readonly instances?: number;
  readonly basePort: number;
  readonly user: string;
}

export interface RedisInstance {
  readonly port: number;
  readonly node: number;
  readonly cpuList: string;
  readonly maxmemoryMb: number;
}

export interface RedisDecision extends DecisionBase {
  readonly kind: 'redis';
  readonly options: RedisOptions;
  readonly instances: RedisInstance[];
}

export function planRedis(m: MachineShare, o: RedisOptions): RedisDecision {
  const d: Derivation[] = [];
  if (m.usable.length === 0) throw new UsageError('redis: no NUMA node has both CPUs and memory; nothing to plan');
  if (o.instances !== undefined && o.instances > m.usable.length) {
    throw new UsageError(`--instances ${o.instances}: more instances than NUMA nodes with CPUs and memory (${m.usable.length}); use --per-core for more than one per node`);
  }
  const nodes = o.instances === undefined ? m.usable : m.usable.slice(0, o.instances);
  const instances: RedisInstance[] = [];
  for (const s of nodes) {
    const slots = o.perCore ? s.coreGroups.map((g) => formatCpuList(g)) : [s.cpuList];
    const mb = Math.floor((s.memGiB * 1024 * REDIS_MEMORY_FRACTION) / slots.length);
    d.push({ what: `node ${s.node} maxmemory per instance`, formula: `${num(s.memGiB)} GiB x ${REDIS_MEMORY_FRACTION}${slots.length > 1 ? ` / ${slots.length} instances` : ''} = ${mb} MiB`, value: `${mb}mb` });
    for (const cpuList of slots) instances.push({ port: o.basePort + instances.length, node: s.node, cpuList, maxmemoryMb: mb });
  }
  d.push({ what: 'ports', formula: `${o.basePort} + 0 .. ${instances.length - 1}`, value: `${o.basePort}-${o.basePort + instances.length - 1}` });
  if (o.basePort + instances.length - 1 > 65535) throw new UsageError(`--base-port ${o.basePort}: ${instances.length} instances run past port 65535`);
  return { kind: 'redis', machine: m, tuning: planTuning('latency', m), options: o, instances, derivations: d, notes: [...m.notes] };
}
