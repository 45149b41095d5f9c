// --granularity threads: a process whose hot threads fit fewer nodes than the whole process is
// placed apart. Its hot threads (threads.ts) go to the best node set for them, with the memory;
// its cold threads to the spare CPUs of the node nearest that set. numad and a whole-process
// placement spread such a process over two nodes, and its hot thread then sees half its memory
// remote. The split is scored by what its hot threads reach of the memory, then by what its
// cold threads reach (evaluate.ts, better); its locality is weighted by CPU, the hot threads'
// apart (decide.ts judges --min-gain on theirs). Pure.
import { distance } from './node_sets.js';
import { candidateSets } from './node_sets.js';
import { evaluate, FIT_SLACK, memoryAfter, better, type Scored } from './evaluate.js';
import { rankThreads, secondsByNode, threadsLocality } from './threads.js';
import type { NodeView, PolicyOptions, ProcessView } from './types.js';

/** Cold threads using less than this (CPUs) are not worth a split. */
export const MIN_COLD_CPU = 0.05;

interface Ctx {
  readonly all: readonly NodeView[];
  readonly usable: readonly NodeView[];
  readonly runNodes: readonly number[];
}

/** The node for the cold threads: one that holds them (within FIT_SLACK), nearest the hot set, most spare. */
function coldNode(
  p: ProcessView,
  hotSet: readonly NodeView[],
  coldCpu: number,
  cold: Record<string, number>,
  usable: readonly NodeView[],
): NodeView | null {
  const ids = new Set(hotSet.map((n) => n.id));
  const near = (n: NodeView) => Math.min(...hotSet.map((h) => distance(h, n.id)));
  const spare = (n: NodeView) =>
    Math.min(n.cpus.length, n.idleCpus + (p.windowSeconds > 0 ? (cold[String(n.id)] ?? 0) / p.windowSeconds : 0)) -
    coldCpu;
  const options = usable.filter((n) => !ids.has(n.id));
  options.sort(
    (a, b) =>
      Number(spare(b) >= -FIT_SLACK) - Number(spare(a) >= -FIT_SLACK) ||
      near(a) - near(b) ||
      spare(b) - spare(a) ||
      a.id - b.id,
  );
  return options[0] ?? null;
}

/** The split placement's score, or null when a split does not apply or cannot beat `wholeK` nodes. */
export function placeSplit(p: ProcessView, ctx: Ctx, wholeK: number, opts: PolicyOptions): Scored | null {
  if (opts.granularity !== 'threads' || opts.tune === 'pages' || p.threadUse === undefined || p.memory.kind !== 'ok')
    return null;
  const rank = rankThreads(p.threadUse, p.windowSeconds);
  if (rank.hot.length === 0 || rank.coldCpu < MIN_COLD_CPU) return null;
  const hotSeconds = secondsByNode(rank.hot);
  const coldSeconds = secondsByNode(rank.cold);
  // The hot threads' need, against each node's idle CPUs plus all this process uses there: the
  // cold threads running on the hot set's nodes leave them for the cold node, as the hot ones
  // leave theirs.
  const hv: ProcessView = { ...p, cpu: rank.hotCpu, cpuNodes: secondsByNode([...rank.hot, ...rank.cold]) };
  const hotRun = Object.keys(hotSeconds).map(Number);
  const total = p.memory.totalBytes;
  const h = rank.hotCpu / (rank.hotCpu + rank.coldCpu);
  const out: Scored[] = [];
  for (const set of candidateSets(ctx.usable, rank.hotCpu, hotRun.length > 0 ? hotRun : ctx.runNodes)) {
    if (set.length >= wholeK) continue;
    const hot = evaluate(hv, set, { all: ctx.all, runNodes: hotRun }, opts);
    const cn = hot === null ? null : coldNode(p, set, rank.coldCpu, coldSeconds, ctx.usable);
    if (hot === null || cn === null) continue;
    const mem = memoryAfter(p, hot.placement.moveFrom, hot.placement.nodes);
    let coldReach = 0;
    for (const [m, bytes] of mem) coldReach += (bytes * 10) / distance(cn, m) / total;
    const coldLocal = (mem.get(cn.id) ?? 0) / total;
    const coldCpus = cn.cpus.filter((c) => p.cpusPermitted.includes(c));
    out.push({
      ...hot,
      // Scored by what the hot threads reach, then by the cold ones': the hot threads are the
      // process's CPU and, by the premise of a split, its memory traffic (helpers: GC, JIT, I/O).
      // Weighting the cold threads' reach by their CPU made a split tie with staying spread over
      // two nodes, the hot thread half remote (the lab's "helper threads" case after a
      // whole-process move).
      reach: hot.reach,
      coldReach,
      placement: {
        ...hot.placement,
        localityAfter: h * hot.placement.localityAfter + (1 - h) * coldLocal,
        split: {
          hotTids: rank.hot.map((t) => t.tid),
          coldNodes: [cn.id],
          coldCpus,
          hotCpu: rank.hotCpu,
          coldCpu: rank.coldCpu,
          hotLocalityNow: threadsLocality(rank.hot, p.memory) ?? 0,
          hotLocalityAfter: hot.placement.localityAfter,
        },
      },
    });
  }
  return out.sort((a, b) => better(a, b, total, opts))[0] ?? null;
}
