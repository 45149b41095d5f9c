// redis: one instance per NUMA node (or one per physical core with --per-core, one per L3 cache
// with --per-l3), each pinned with taskset to its CPUs and numactl --membind to its node (field
// report 001), on its own port. --per-l3 keeps each instance (its main thread and io-threads)
// and its hot keys in one L3: on EPYC a node holds several CCX, and a process spread over them
// passes its cache lines between L3s.
// An instance's resident memory is maxmemory x 1.1 (allocator fragmentation) plus a 64 MiB
// base, and a BGSAVE fork can copy all of it (Redis: up to twice the memory normally used), so
// the instances on a node must fit its budget (budget.ts) at 2 x (1.1 x maxmemory + 64 MiB):
//   maxmemory = (budget / instances - 2 x 64 MiB) / 2.2
import { UsageError } from '../../model/errors.js';
import { formatCpuList } from '../../model/cpuset.js';
import { budgetGiB, budgetText, memoryPlan } from './budget.js';
import { num, oneNodeNotes } from './machine.js';
import type { Commitment, DecisionBase, Derivation, MachineShare, MemPolicyKind } from './types.js';
import { planTuning } from './tuning.js';

export const REDIS_FRAGMENTATION = 1.1;
export const REDIS_FORK_FACTOR = 2;
export const REDIS_BASE_MIB = 64;

export interface RedisOptions {
  readonly perCore: boolean;
  /** One instance per L3 group of each node (model/topology.ts l3Groups). */
  readonly perL3?: boolean;
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
    throw new UsageError(
      `--instances ${o.instances}: more instances than NUMA nodes with CPUs and memory (${m.usable.length}); use --per-core for more than one per node`,
    );
  }
  const nodes = o.instances === undefined ? m.usable : m.usable.slice(0, o.instances);
  const instances: RedisInstance[] = [];
  const per = new Map<number, { items: Commitment[]; policy: MemPolicyKind }>();
  for (const s of nodes) {
    if (o.perL3 && s.l3Groups.length === 0)
      throw new UsageError(
        `redis --per-l3: node ${s.node}'s CPUs have no known L3 cache (sysfs has no cpuN/cache/index*/ of level 3); use --per-core or one instance per node`,
      );
    const slots = o.perCore
      ? s.coreGroups.map((g) => formatCpuList(g))
      : o.perL3
        ? s.l3Groups.map((g) => formatCpuList(g))
        : [s.cpuList];
    if (o.perL3)
      d.push({
        what: `node ${s.node} instances`,
        formula: `one per L3 cache: ${s.l3Groups.map((g) => formatCpuList(g)).join(' | ')}`,
        value: `${slots.length}`,
      });
    const budgetMib = budgetGiB(s.memGiB) * 1024;
    const mb = Math.floor((budgetMib / slots.length / REDIS_FORK_FACTOR - REDIS_BASE_MIB) / REDIS_FRAGMENTATION);
    if (mb < REDIS_BASE_MIB)
      throw new UsageError(
        `redis: ${budgetText(s.node, s.memGiB)}; that leaves ${Math.max(0, mb)} MiB of maxmemory for each of ${slots.length} instance(s) once a BGSAVE fork may double them (at least ${REDIS_BASE_MIB} MiB needed); use fewer instances (no --per-core) or a larger node`,
      );
    d.push({
      what: `node ${s.node} maxmemory per instance`,
      formula: `(budget ${num(budgetMib)} MiB${slots.length > 1 ? ` / ${slots.length} instances` : ''} / ${REDIS_FORK_FACTOR} (BGSAVE fork) - ${REDIS_BASE_MIB} MiB) / ${REDIS_FRAGMENTATION} (fragmentation) = ${mb} MiB`,
      value: `${mb}mb`,
    });
    const one = (mb * REDIS_FRAGMENTATION + REDIS_BASE_MIB) / 1024;
    per.set(s.node, {
      items: [
        {
          what: `${slots.length} instance(s) (maxmemory x ${REDIS_FRAGMENTATION} + ${REDIS_BASE_MIB} MiB each)`,
          gib: slots.length * one,
        },
        { what: 'their BGSAVE forks at worst', gib: slots.length * one },
      ],
      policy: 'bind',
    });
    for (const cpuList of slots)
      instances.push({ port: o.basePort + instances.length, node: s.node, cpuList, maxmemoryMb: mb });
  }
  d.push({
    what: 'ports',
    formula: `${o.basePort} + 0 .. ${instances.length - 1}`,
    value: `${o.basePort}-${o.basePort + instances.length - 1}`,
  });
  if (o.basePort + instances.length - 1 > 65535)
    throw new UsageError(`--base-port ${o.basePort}: ${instances.length} instances run past port 65535`);
  return {
    kind: 'redis',
    machine: m,
    tuning: planTuning('latency', m),
    memory: memoryPlan(m, per),
    options: o,
    instances,
    derivations: d,
    notes: [...m.notes, ...oneNodeNotes(m)],
  };
}
