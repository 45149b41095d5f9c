// One pass of the agent's policy over the candidates (processes that passed screen() and whose
// numa_maps was read): memory pins, placement, hysteresis (--min-gain), the migration budget.
// Processes with the most remote memory go first; each move takes its CPU and memory from the
// target nodes before the next process is placed, so two processes that fit one node each do
// not both pick the same node. Pure: the clock and the machine come in as data.
import { remoteBytes } from '../locality.js';
import { spend, type Budget, type BudgetOptions } from './budget.js';
import { memoryPin } from './candidates.js';
import { place } from './place.js';
import type { Decision, NodeView, Placement, PolicyOptions, ProcessView } from './types.js';

/** Locality at or above this is "already local": nothing to gain worth a log line. */
export const LOCAL_ENOUGH = 0.95;

export interface DecideInput {
  readonly nodes: readonly NodeView[];
  readonly processes: readonly ProcessView[];
  readonly budget: Budget;
  /** Seconds of an interval (the budget's burst). */
  readonly intervalSeconds: number;
}

export interface DecideResult {
  readonly decisions: Decision[];
  readonly budget: Budget;
}

const pct = (x: number) => `${Math.round(x * 100)}%`;
const mib = (b: number) => `${Math.round(b / 1048576)} MiB`;

/** The machine after a move: the process's CPU and moved memory leave their old nodes for the new ones. */
export function afterMove(nodes: readonly NodeView[], p: ProcessView, pl: Placement): NodeView[] {
  const share = p.cpu / pl.nodes.length;
  const moveShare = pl.moveBytes / pl.nodes.length;
  return nodes.map((n) => {
    const own = p.windowSeconds > 0 ? (p.cpuNodes[String(n.id)] ?? 0) / p.windowSeconds : 0;
    const target = pl.nodes.includes(n.id);
    const freed = pl.moveFrom.includes(n.id) && p.memory.kind === 'ok' ? (p.memory.nodes[String(n.id)]?.totalBytes ?? 0) : 0;
    const idle = pl.cpus === null ? n.idleCpus : Math.min(n.cpus.length, n.idleCpus + own) - (target ? share : 0);
    return { ...n, idleCpus: idle, freeBytes: n.freeBytes + freed - (target ? moveShare : 0) };
  });
}

function moveReason(pl: Placement, tune: PolicyOptions['tune']): string {
  const what = [pl.cpus !== null ? `threads to node ${pl.nodes.join(',')}` : '', pl.moveBytes > 0 ? `${mib(pl.moveBytes)} from node ${pl.moveFrom.join(',')} to ${pl.nodes.join(',')}` : '']
    .filter(Boolean).join(', ');
  return `locality ${pct(pl.localityNow)} -> ${pct(pl.localityAfter)}: ${what || 'nothing to move'} (tune ${tune})`;
}

/** The decision for one candidate, given the machine as earlier decisions left it. */
export function decideOne(p: ProcessView, nodes: readonly NodeView[], opts: PolicyOptions): Decision {
  const base = { pid: p.pid, comm: p.comm };
  const pin = memoryPin(p, opts);
  if (pin !== null) {
    const why = pin === 'no-permission' ? 'numa_maps not readable' : `memory policy set by the user (${Object.keys(p.memory.kind === 'ok' ? p.memory.policies : {}).join(' ')})`;
    return { kind: 'skip', ...base, skip: pin, reason: why };
  }
  const r = place(p, nodes, opts);
  if (!r.ok) return { kind: 'skip', ...base, skip: r.skip, reason: r.reason };
  const pl = r.placement;
  const gain = pl.localityAfter - pl.localityNow;
  const pinnedThere = pl.cpus === null || (p.cpusAllowed !== null && pl.cpus.length === p.cpusAllowed.length && pl.cpus.every((c) => p.cpusAllowed!.includes(c)));
  if (pl.localityNow >= LOCAL_ENOUGH && gain < opts.minGain) {
    if (pinnedThere) return { kind: 'skip', ...base, skip: 'local', reason: `locality ${pct(pl.localityNow)} on node ${pl.nodes.join(',')}`, localityNow: pl.localityNow };
    // Local but free to wander: bind its threads where its memory is (no memory moves), so the
    // scheduler cannot drift it away, and so later decisions count its CPU on that node.
    const bind = { ...pl, moveFrom: [], moveBytes: 0, localityAfter: Math.max(pl.localityNow, pl.localityAfter) };
    return { kind: 'move', ...base, placement: bind, reason: `locality ${pct(pl.localityNow)}: bind its threads to node ${pl.nodes.join(',')} where its memory is (tune ${opts.tune})` };
  }
  if (gain < opts.minGain) {
    return { kind: 'skip', ...base, skip: 'low-gain', reason: `best gain ${pct(gain)} (node ${pl.nodes.join(',')}) < --min-gain ${pct(opts.minGain)}`, localityNow: pl.localityNow };
  }
  return { kind: 'move', ...base, placement: pl, reason: moveReason(pl, opts.tune) };
}

export function decide(input: DecideInput, opts: PolicyOptions): DecideResult {
  const bo: BudgetOptions = { mbps: opts.maxMigrateMbps, burstSeconds: input.intervalSeconds };
  const ordered = [...input.processes].sort((a, b) => remoteBytes(b) - remoteBytes(a) || b.rssBytes - a.rssBytes || a.pid - b.pid);
  let nodes = input.nodes;
  let budget = input.budget;
  const decisions: Decision[] = [];
  for (const p of ordered) {
    const d = decideOne(p, nodes, opts);
    if (d.kind === 'move') {
      const next = spend(budget, d.placement.moveBytes, bo);
      if (next === null) {
        decisions.push({ kind: 'skip', pid: p.pid, comm: p.comm, skip: 'budget', reason: `${mib(d.placement.moveBytes)} to move, budget ${mib(Math.max(0, budget.tokens))} left (--max-migrate-mbps ${opts.maxMigrateMbps})`, localityNow: d.placement.localityNow });
        continue;
      }
      budget = next;
      nodes = afterMove(nodes, p, d.placement);
    }
    decisions.push(d);
  }
  return { decisions, budget };
}
