// mysql and postgres: one server, placed by the size of its buffer pool against node memory.
// The server commits the pool plus its own memory (10% of the pool, at least 1 GiB: InnoDB's
// structures or PostgreSQL's backends at their default sizes), and that must stay within the
// node's budget (budget.ts) before memory is bound there:
//   pool <= 60 % of the node and pool + server <= budget -> bind (CPUs and memory of the node)
//   pool <= 85 % of the node                             -> preferred (local first; what does not
//                                                           fit the budget spills to the other nodes)
//   larger                                               -> interleave over the CPU nodes' memory
// A pool whose server does not fit the budgets of all CPU nodes together is refused, with the
// numbers. Via systemd NUMAPolicy=/NUMAMask=/CPUAffinity= (>= 243) or numactl in ExecStart=.
import { UsageError } from '../../model/errors.js';
import { budgetGiB, committedWith, interleaveSet, memoryPlan, RESERVE_RULE } from './budget.js';
import { chooseNode } from './choose_node.js';
import { num, oneNodeNotes } from './machine.js';
import type { Commitment, DecisionBase, Derivation, MachineShare, MemPolicyKind, NodeShare } from './types.js';
import { planTuning } from './tuning.js';

export type MemPolicy = 'bind' | 'preferred' | 'interleave';

export interface DbOptions {
  readonly engine: 'mysql' | 'postgres';
  readonly poolBytes: number;
  readonly node?: number;
  readonly systemdVersion: number;
  /** The server's unit as the distribution's packages name it (distro.ts), or --name. */
  readonly unit: string;
  /** Where the server's settings go so the packages' configuration includes them. */
  readonly confPath: string;
  /** postgresql.conf that must include conf.d (RHEL family), or null. */
  readonly includeFrom: string | null;
  /** innodb_numa_interleave exists (MySQL, not MariaDB). */
  readonly interleaveOption: boolean;
  /** The server is MariaDB (--server mariadb), whose documentation is cited beside MySQL's. */
  readonly mariadb: boolean;
  /** Why these units and paths, for PLAN.md. */
  readonly layoutWhy: string;
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
  /** The server's memory beyond the pool, GiB. */
  readonly serverGiB: number;
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
  d.push({
    what: '2 MiB huge pages',
    formula: `${raw} pages for the pool + 2% = ${total}${nodes.length > 1 ? `, / ${nodes.length} nodes = ${per} each` : ''}`,
    value: `${total}`,
  });
  return nodes.map((node) => ({ node, pages: per }));
}

function choosePolicy(s: NodeShare, poolGiB: number, committed: number, m: MachineShare, d: Derivation[]): MemPolicy {
  const ratio = poolGiB / s.memGiB;
  const budget = budgetGiB(s.memGiB);
  const fits = committed <= budget;
  const policy: MemPolicy =
    ratio <= BIND_MAX && fits ? 'bind' : ratio <= PREFERRED_MAX || m.usable.length === 1 ? 'preferred' : 'interleave';
  const why =
    policy === 'bind'
      ? `<= ${BIND_MAX} and ${num(committed)} <= budget ${num(budget)} GiB -> bind`
      : ratio <= BIND_MAX
        ? `<= ${BIND_MAX}, but ${num(committed)} GiB > budget ${num(budget)} GiB: bound, a full node would OOM-kill it -> preferred`
        : policy === 'preferred'
          ? `> ${BIND_MAX}, <= ${PREFERRED_MAX} -> preferred`
          : `> ${PREFERRED_MAX} -> interleave`;
  d.push({
    what: 'memory policy',
    formula: `pool ${num(poolGiB)} GiB / node ${s.node} ${num(s.memGiB)} GiB = ${num(ratio)} ${why}`,
    value: policy,
  });
  return policy;
}

/** Where the server's memory lands: on the node (bind), the node first and the rest spilled in turn (preferred), or evenly (interleave). */
function commitments(
  m: MachineShare,
  s: NodeShare,
  policy: MemPolicy,
  items: Commitment[],
  committed: number,
  spread: readonly NodeShare[],
): Map<number, { items: Commitment[]; policy: MemPolicyKind }> {
  const all = items.map((c) => c.what).join(' + ');
  const out = new Map<number, { items: Commitment[]; policy: MemPolicyKind }>();
  if (policy === 'bind') return out.set(s.node, { items, policy });
  if (policy === 'interleave') {
    for (const u of spread)
      out.set(u.node, {
        items: items.map((c) => ({ what: `${c.what} / ${spread.length}`, gib: c.gib / spread.length })),
        policy,
      });
    return out;
  }
  let left = committed;
  for (const u of [s, ...m.usable.filter((x) => x.node !== s.node)]) {
    const here = Math.min(left, Math.max(0, budgetGiB(u.memGiB)));
    left -= here;
    if (here > 0)
      out.set(u.node, {
        items: [{ what: u.node === s.node ? `${all}, up to the budget` : `${all}, spilled`, gib: here }],
        policy,
      });
  }
  return out;
}

/** What the server commits: its pool, its own memory beside it, and the two together. */
interface ServerSize {
  readonly poolGiB: number;
  readonly serverGiB: number;
  readonly committed: number;
}

/** Sizes the server from its pool; refused when it does not fit the budgets of all CPU nodes together. */
function sizeServer(m: MachineShare, poolBytes: number): { size: ServerSize; derivation: Derivation } {
  const c = committedWith(poolBytes / GiB, { what: 'server memory', main: 'pool', beside: 'server' });
  const { mainGiB: poolGiB, besideGiB: serverGiB, committed } = c;
  const room = m.usable.reduce((a, s) => a + Math.max(0, budgetGiB(s.memGiB)), 0);
  if (committed > room)
    throw new UsageError(
      `--buffer-pool ${num(poolGiB)} GiB + ${num(serverGiB)} GiB server = ${num(committed)} GiB does not fit this machine: its CPU nodes can take ${num(room)} GiB after each keeps its reserve (${RESERVE_RULE}); use a smaller pool`,
    );
  return { size: { poolGiB, serverGiB, committed }, derivation: c.derivation };
}

/**
 * The policy by the pool's share of the node, and for interleave the nodes it spreads over; an
 * interleave that cannot spread evenly over two nodes or more falls back to preferred. `spread`
 * is null unless the policy is interleave.
 */
function settlePolicy(
  m: MachineShare,
  s: NodeShare,
  size: ServerSize,
  d: Derivation[],
): { policy: MemPolicy; spread: NodeShare[] | null } {
  const policy = choosePolicy(s, size.poolGiB, size.committed, m, d);
  if (policy !== 'interleave') return { policy, spread: null };
  const spread = interleaveSet(m.usable, size.committed);
  if (spread !== null && spread.length >= 2) return { policy, spread };
  d.push({
    what: 'memory policy',
    formula: `interleaved evenly, ${num(size.committed)} GiB would put more on some node than its budget: preferred node ${s.node}, spilling in turn`,
    value: 'preferred',
  });
  return { policy: 'preferred', spread: null };
}

function dbNotes(m: MachineShare, o: DbOptions, spread: NodeShare[] | null, committed: number): string[] {
  const notes = [...m.notes];
  if (spread !== null && spread.length < m.usable.length)
    notes.push(
      `Interleaved over nodes ${spread.map((u) => u.node).join(',')} only: an even share of ${num(committed)} GiB would be over the budget of the smaller nodes.`,
    );
  if (spread !== null && m.memoryNodes.length > m.usable.length)
    notes.push('Memory-only nodes are left out of the interleave mask: they are farther from every CPU.');
  notes.push(...oneNodeNotes(m));
  if (o.engine === 'postgres')
    notes.push(
      'work_mem x max_connections and maintenance_work_mem come on top of shared_buffers: keep them within what "Memory per node" leaves.',
    );
  if (o.systemdVersion < 243)
    notes.push(
      `systemd ${o.systemdVersion} has no NUMAPolicy= (added in 243): the drop-in replaces ExecStart= with a numactl prefix.`,
    );
  return notes;
}

export function planDb(m: MachineShare, o: DbOptions): DbDecision {
  const d: Derivation[] = [
    { what: 'unit and settings file', formula: o.layoutWhy, value: `${o.unit}.service, ${o.confPath}` },
  ];
  const s = chooseNode(m, o.node, d);
  const { size, derivation } = sizeServer(m, o.poolBytes);
  d.push(derivation);
  const { policy, spread } = settlePolicy(m, s, size, d);
  const nodes = spread !== null ? spread.map((u) => u.node) : [s.node];
  const items = [
    { what: o.engine === 'mysql' ? 'buffer pool' : 'shared_buffers', gib: size.poolGiB },
    { what: 'server', gib: size.serverGiB },
  ];
  const memory = memoryPlan(m, commitments(m, s, policy, items, size.committed, spread ?? m.usable));
  return {
    kind: 'db',
    machine: m,
    tuning: planTuning('database', m),
    memory,
    options: o,
    policy,
    node: s.node,
    mask: nodes.join(','),
    cpuList: policy === 'bind' ? s.cpuList : null,
    poolGiB: size.poolGiB,
    serverGiB: size.serverGiB,
    hugePages: o.hugePages ? hugePagePlan(nodes, o.poolBytes, d) : [],
    derivations: d,
    notes: dbNotes(m, o, spread, size.committed),
  };
}
