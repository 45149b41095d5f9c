// One pass of the agent's policy over the candidates (processes that passed screen() and whose
// numa_maps was read): memory pins, placement, hysteresis (--min-gain), the migration budget.
// The candidates are placed as one whole fit (fit.ts): the CPU of those that may move is freed
// first, then the largest is placed first; each move takes its CPU and memory from the target
// nodes before the next process is placed, so two processes that fit one node each do not both
// pick the same node. Pure: the clock and the machine come in as data.
import { remoteBytes } from '../locality.js';
import { type AccessGain, accessGain, accessText } from './access_signal.js';
import { spend, type Budget, type BudgetOptions } from './budget.js';
import { memoryPin } from './candidates.js';
import { copyNote, fitNote, fitOrder, freeMovers, staysPut, threadsStay, viewFor } from './fit.js';
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
  /**
   * A copy judged over a window shorter than `minWindowSeconds` is made only when the pass before
   * decided one too (pids in `decidedBefore`); else it waits a window ('confirming'). Absent: none waits.
   */
  readonly confirm?: { readonly decidedBefore: ReadonlySet<number>; readonly minWindowSeconds: number };
}

export interface DecideResult {
  readonly decisions: Decision[];
  readonly budget: Budget;
}

const pct = (x: number) => `${Math.round(x * 100)}%`;
const mib = (b: number) => `${Math.round(b / 1048576)} MiB`;

/** The machine after a move: the process's CPU and moved memory leave their old nodes for the new ones. */
export function afterMove(nodes: readonly NodeView[], p: ProcessView, pl: Placement): NodeView[] {
  // With a split, the hot threads' CPU goes to the nodes, the cold threads' to the cold nodes.
  const share = (pl.split?.hotCpu ?? p.cpu) / pl.nodes.length;
  const coldShare = pl.split ? pl.split.coldCpu / pl.split.coldNodes.length : 0;
  const moveShare = pl.moveBytes / pl.nodes.length;
  return nodes.map((n) => {
    const own = p.windowSeconds > 0 ? (p.cpuNodes[String(n.id)] ?? 0) / p.windowSeconds : 0;
    const target = pl.nodes.includes(n.id);
    const cold = pl.split?.coldNodes.includes(n.id) === true;
    const freed =
      pl.moveFrom.includes(n.id) && p.memory.kind === 'ok' ? (p.memory.nodes[String(n.id)]?.totalBytes ?? 0) : 0;
    const idle =
      pl.cpus === null
        ? n.idleCpus
        : Math.min(n.cpus.length, n.idleCpus + own) - (target ? share : 0) - (cold ? coldShare : 0);
    return { ...n, idleCpus: idle, freeBytes: n.freeBytes + freed - (target ? moveShare : 0) };
  });
}

function threadsWhere(pl: Placement): string {
  if (pl.cpus === null) return '';
  const sp = pl.split;
  if (sp === undefined) return `threads to node ${pl.nodes.join(',')}`;
  const hot = `${sp.hotTids.length} hot thread${sp.hotTids.length === 1 ? '' : 's'} (${Math.round((100 * sp.hotCpu) / (sp.hotCpu + sp.coldCpu))}% of its CPU) to node ${pl.nodes.join(',')}`;
  return `${hot}, the others to node ${sp.coldNodes.join(',')}`;
}

function moveReason(pl: Placement, tune: PolicyOptions['tune']): string {
  const what = [
    threadsWhere(pl),
    pl.moveBytes > 0 ? `${mib(pl.moveBytes)} from node ${pl.moveFrom.join(',')} to ${pl.nodes.join(',')}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  const hot = pl.split ? ` (hot threads ${pct(pl.split.hotLocalityNow)} -> ${pct(pl.split.hotLocalityAfter)})` : '';
  return `locality ${pct(pl.localityNow)} -> ${pct(pl.localityAfter)}${hot}: ${what || 'nothing to move'} (tune ${tune})`;
}

const sameCpus = (a: readonly number[] | null, b: readonly number[]) =>
  a !== null && a.length === b.length && a.every((c) => b.includes(c));

/** Its main thread already has the CPUs the placement gives it (the hot or the cold ones with a split). */
function boundThere(p: ProcessView, pl: Placement): boolean {
  if (pl.cpus === null) return true;
  const sp = pl.split;
  return sameCpus(p.cpusAllowed, sp === undefined || sp.hotTids.includes(p.pid) ? pl.cpus : sp.coldCpus);
}

function localReason(pl: Placement): string {
  const sp = pl.split;
  if (sp === undefined) return `locality ${pct(pl.localityNow)} on node ${pl.nodes.join(',')}`;
  return `hot threads ${pct(sp.hotLocalityNow)} local on node ${pl.nodes.join(',')}, the others on node ${sp.coldNodes.join(',')}`;
}

/** The decision for one candidate, given the machine as earlier decisions left it. */
export function decideOne(p: ProcessView, nodes: readonly NodeView[], opts: PolicyOptions): Decision {
  const base = { pid: p.pid, comm: p.comm, ...(p.unit ? { unit: p.unit } : {}) };
  const pin = memoryPin(p, opts);
  if (pin !== null) {
    const why =
      pin === 'no-permission'
        ? 'numa_maps not readable'
        : `memory policy set by the user (${Object.keys(p.memory.kind === 'ok' ? p.memory.policies : {}).join(' ')})`;
    return { kind: 'skip', ...base, skip: pin, reason: why };
  }
  const r = place(p, nodes, opts);
  if (!r.ok) return { kind: 'skip', ...base, skip: r.skip, reason: r.reason };
  const pl = r.placement;
  // With a split, the gain is the hot threads' (what a split is for), as long as the process as
  // a whole, CPU-weighted, loses nothing.
  const weighted = pl.localityAfter - pl.localityNow;
  const gain = pl.split !== undefined && weighted >= 0 ? pl.split.hotLocalityAfter - pl.split.hotLocalityNow : weighted;
  // With a split, "local" is about the hot threads: the cold ones run near, not with, the memory.
  // A process larger than a node is as local as it can be when no placement gains: its memory
  // stays where it is, and where it runs holds the most of it.
  const localNow = pl.split?.hotLocalityNow ?? pl.localityNow;
  const settled = localNow >= LOCAL_ENOUGH || (r.largerThanNode && gain < opts.minGain);
  const acc = accessGain(p, pl);
  const withAccess = (reason: string, change: boolean) =>
    acc === null ? reason : `${reason}; ${accessText(acc, change)}`;
  if (acc !== null) {
    const byAccess = accessDecision(p, pl, { acc, pageGain: gain }, opts);
    if (byAccess !== null) return byAccess;
  }
  if (settled && gain < opts.minGain) {
    const large = r.largerThanNode ? `larger than any node, nothing copied: ` : '';
    if (boundThere(p, pl))
      return {
        kind: 'skip',
        ...base,
        skip: 'local',
        reason: withAccess(large + localReason(pl), false),
        localityNow: pl.localityNow,
      };
    // Local (or as local as it can be) but free to wander: bind its threads where its memory is
    // (no memory moves), so the scheduler cannot drift it away, and so later decisions count
    // its CPU on that node.
    const bind = { ...pl, moveFrom: [], moveBytes: 0, localityAfter: Math.max(pl.localityNow, pl.localityAfter) };
    const what = pl.split
      ? `hot threads ${pct(pl.split.hotLocalityNow)}: bind them to node ${pl.nodes.join(',')} where its memory is, the others to node ${pl.split.coldNodes.join(',')}`
      : `locality ${pct(pl.localityNow)}: bind its threads to node ${pl.nodes.join(',')} where ${large ? 'most of ' : ''}its memory is`;
    return {
      kind: 'move',
      ...base,
      placement: bind,
      reason: withAccess(`${large}${what} (tune ${opts.tune})`, false),
      cpu: p.cpu,
    };
  }
  if (gain < opts.minGain) {
    return {
      kind: 'skip',
      ...base,
      skip: 'low-gain',
      reason: withAccess(
        `best gain ${pct(gain)} (node ${pl.nodes.join(',')}) < --min-gain ${pct(opts.minGain)}`,
        false,
      ),
      localityNow: pl.localityNow,
      cpu: p.cpu,
    };
  }
  return { kind: 'move', ...base, placement: pl, reason: withAccess(moveReason(pl, opts.tune), true), cpu: p.cpu };
}

/**
 * Where accesses and pages disagree (access_signal.ts), the accesses decide: a page gain whose
 * accesses gain nothing is cold memory, left alone; an access gain the pages do not show is
 * acted on. Null: they agree, the page rules decide.
 */
function accessDecision(
  p: ProcessView,
  pl: Placement,
  { acc, pageGain }: { acc: AccessGain; pageGain: number },
  opts: PolicyOptions,
): Decision | null {
  const base = { pid: p.pid, comm: p.comm, ...(p.unit ? { unit: p.unit } : {}) };
  const gain = acc.after - acc.now;
  if (pageGain >= opts.minGain && gain < opts.minGain) {
    const moved = pl.moveBytes > 0 ? `, ${mib(pl.moveBytes)} to move` : '';
    return {
      kind: 'skip',
      ...base,
      skip: 'cold-memory',
      reason: `its pages are ${pct(pl.localityNow)} local but its ${accessText(acc, false)}: the remote memory is cold; the best placement (node ${pl.nodes.join(',')}${moved}) raises accesses by ${pct(gain)} < --min-gain ${pct(opts.minGain)}`,
      localityNow: pl.localityNow,
      cpu: p.cpu,
    };
  }
  if (pageGain < opts.minGain && gain >= opts.minGain && (pl.moveBytes > 0 || !boundThere(p, pl)))
    return {
      kind: 'move',
      ...base,
      placement: pl,
      reason: `${accessText(acc, true)} though its pages are ${pct(pl.localityNow)} local (the remote pages are the ones it uses): ${moveReason(pl, opts.tune)}`,
      cpu: p.cpu,
    };
  return null;
}

/**
 * The decisions of one pass: the candidates placed as one whole fit (fit.ts), run again with
 * the processes that stayed counted where they run until every freed process moved.
 */
export function decide(input: DecideInput, opts: PolicyOptions): DecideResult {
  const stays = new Set(input.processes.filter((p) => staysPut(p, opts, LOCAL_ENOUGH)));
  for (;;) {
    const round = fitRound(input, opts, stays);
    const more = round.stayed.filter((p) => !stays.has(p));
    if (more.length === 0) return round.result;
    for (const p of more) stays.add(p);
  }
}

/** One round of the fit: each candidate decided on the machine the earlier ones left. */
function fitRound(
  input: DecideInput,
  opts: PolicyOptions,
  stays: ReadonlySet<ProcessView>,
): { result: DecideResult; stayed: ProcessView[] } {
  const bo: BudgetOptions = { mbps: opts.maxMigrateMbps, burstSeconds: input.intervalSeconds };
  let nodes = freeMovers(input.nodes, input.processes, stays);
  let budget = input.budget;
  const decisions: Decision[] = [];
  const stayed: ProcessView[] = [];
  for (const p of fitOrder(input.processes, stays, remoteBytes)) {
    const view = viewFor(nodes, p, !stays.has(p));
    let d = decideOne(p, view, opts);
    if (d.kind === 'move' && unconfirmedCopy(p, d.placement, input.confirm)) d = confirmSkip(p, d.placement);
    if (d.kind === 'move') {
      const next = spend(budget, d.placement.moveBytes, bo);
      if (next === null) d = budgetSkip(p, d.placement, budget, opts);
      else {
        budget = next;
        if (d.placement.cpus !== null) d = { ...d, reason: d.reason + moveNotes(p, d.placement, view, input, stays) };
      }
    }
    nodes = d.kind === 'move' ? afterMove(view, p, d.placement) : view;
    if (threadsStay(d)) stayed.push(p);
    decisions.push(d);
  }
  return { result: { decisions, budget }, stayed };
}

/** What the log adds to a move: whose CPU the fit counted as room, and why its memory is copied. */
function moveNotes(
  p: ProcessView,
  pl: Placement,
  view: readonly NodeView[],
  input: DecideInput,
  stays: ReadonlySet<ProcessView>,
): string {
  const copy = pl.moveBytes > 0 ? copyNote(p, pl.moveFrom, view) : '';
  return fitNote(p, pl.nodes, input.processes, stays) + copy;
}

/**
 * A copy decided over a short window (a second after a process appeared or dropped its binding),
 * not decided at the pass before: the machine such a window shows is the scheduler settling
 * (threads counted on the CPU they last ran on, a node busy for a moment), and a copy is the one
 * costly action (its threads going to its memory costs nothing to undo). It waits one window more.
 */
function unconfirmedCopy(p: ProcessView, pl: Placement, c: DecideInput['confirm']): boolean {
  return c !== undefined && pl.moveBytes > 0 && p.windowSeconds < c.minWindowSeconds && !c.decidedBefore.has(p.pid);
}

function confirmSkip(p: ProcessView, pl: Placement): Decision {
  return {
    kind: 'skip',
    pid: p.pid,
    comm: p.comm,
    ...(p.unit ? { unit: p.unit } : {}),
    skip: 'confirming',
    reason: `${mib(pl.moveBytes)} to copy to node ${pl.nodes.join(',')}, judged over ${p.windowSeconds.toFixed(1)} s: copied once the next window says so too`,
    localityNow: pl.localityNow,
  };
}

function budgetSkip(p: ProcessView, pl: Placement, budget: Budget, opts: PolicyOptions): Decision {
  return {
    kind: 'skip',
    pid: p.pid,
    comm: p.comm,
    ...(p.unit ? { unit: p.unit } : {}),
    skip: 'budget',
    reason: `${mib(pl.moveBytes)} to move, budget ${mib(Math.max(0, budget.tokens))} left (--max-migrate-mbps ${opts.maxMigrateMbps})`,
    localityNow: pl.localityNow,
  };
}
