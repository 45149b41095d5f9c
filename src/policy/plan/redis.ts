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
import { instanceNodes } from './choose_node.js';
import { budgetGiB, budgetText, memoryPlan } from './budget.js';
import { num, oneNodeNotes } from './machine.js';
import type { Commitment, DecisionBase, Derivation, MachineShare, MemPolicyKind, NodeShare } from './types.js';
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

/** The CPU lists of a node's instances: one per physical core, per L3 cache, or the whole node. */
function redisSlots(s: NodeShare, o: RedisOptions): string[] {
  if (o.perL3 && s.l3Groups.length === 0)
    throw new UsageError(
      `redis --per-l3: node ${s.node}'s CPUs have no known L3 cache (sysfs has no cpuN/cache/index*/ of level 3); use --per-core or one instance per node`,
    );
  if (o.perCore) return s.coreGroups.map((g) => formatCpuList(g));
  if (o.perL3) return s.l3Groups.map((g) => formatCpuList(g));
  return [s.cpuList];
}

/** maxmemory of each of `count` instances on a node, so that they and their BGSAVE forks fit its budget. */
function nodeMaxmemory(s: NodeShare, count: number): { mb: number; derivation: Derivation } {
  const budgetMib = budgetGiB(s.memGiB) * 1024;
  const mb = Math.floor((budgetMib / count / REDIS_FORK_FACTOR - REDIS_BASE_MIB) / REDIS_FRAGMENTATION);
  if (mb < REDIS_BASE_MIB)
    throw new UsageError(
      `redis: ${budgetText(s.node, s.memGiB)}; that leaves ${Math.max(0, mb)} MiB of maxmemory for each of ${count} instance(s) once a BGSAVE fork may double them (at least ${REDIS_BASE_MIB} MiB needed); use fewer instances (no --per-core) or a larger node`,
    );
  return {
    mb,
    derivation: {
      what: `node ${s.node} maxmemory per instance`,
      formula: `(budget ${num(budgetMib)} MiB${count > 1 ? ` / ${count} instances` : ''} / ${REDIS_FORK_FACTOR} (BGSAVE fork) - ${REDIS_BASE_MIB} MiB) / ${REDIS_FRAGMENTATION} (fragmentation) = ${mb} MiB`,
      value: `${mb}mb`,
    },
  };
}

/** What `count` instances of maxmemory `mb` commit on their node, their forks included. */
function nodeCommitments(count: number, mb: number): { items: Commitment[]; policy: MemPolicyKind } {
  const one = (mb * REDIS_FRAGMENTATION + REDIS_BASE_MIB) / 1024;
  return {
    items: [
      {
        what: `${count} instance(s) (maxmemory x ${REDIS_FRAGMENTATION} + ${REDIS_BASE_MIB} MiB each)`,
        gib: count * one,
      },
      { what: 'their BGSAVE forks at worst', gib: count * one },
    ],
    policy: 'bind',
  };
}

export function planRedis(m: MachineShare, o: RedisOptions): RedisDecision {
  const nodes = instanceNodes(m, {
    workload: 'redis',
    instances: o.instances,
    hint: '; use --per-core for more than one per node',
  });
  const d: Derivation[] = [];
  const instances: RedisInstance[] = [];
  const per = new Map<number, { items: Commitment[]; policy: MemPolicyKind }>();
  for (const s of nodes) {
    const slots = redisSlots(s, o);
    if (o.perL3)
      d.push({
        what: `node ${s.node} instances`,
        formula: `one per L3 cache: ${s.l3Groups.map((g) => formatCpuList(g)).join(' | ')}`,
        value: `${slots.length}`,
      });
    const { mb, derivation } = nodeMaxmemory(s, slots.length);
    d.push(derivation);
    per.set(s.node, nodeCommitments(slots.length, mb));
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
