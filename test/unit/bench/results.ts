// Hand-made results for render tests: a 2-node machine's matrices, node 1's column not wholly
// verified. Figures are made up (shaped like a 2-socket server), not measurements.
import { summarize } from '../../../src/bench/ab_summary.ts';
import type {
  AbResult,
  AbRun,
  BandwidthCell,
  BenchKernel,
  LatencyCell,
  MemResult,
  Placement,
} from '../../../src/model/bench.ts';

const MiB = 2 ** 20;

export function placement(node: number, share = 1): Placement {
  const pages = 98304;
  const onNode = Math.round(pages * share);
  const byNode: Record<string, number> = { [node]: onNode };
  if (onNode < pages) byNode[1 - node] = pages - onNode;
  return { node, pages, onNode, byNode, unplaced: 0, share, verified: share === 1, hugeShare: null };
}

function bw(cpuNode: number, memNode: number, base: number, share = 1): BandwidthCell {
  const k = (f: number) => ({
    gbps: { best: base * f, median: base * f * 0.97, min: base * f * 0.9 },
    bytesPerRep: 128 * MiB,
    seconds: [0.01, 0.011, 0.012, 0.0105, 0.0102],
  });
  const kernels: Record<BenchKernel, ReturnType<typeof k>> = {
    read: k(1),
    write: k(0.8),
    copy: k(0.9),
    triad: k(0.95),
  };
  return {
    cpuNode,
    memNode,
    cpus: cpuNode === 0 ? [0, 1, 2, 3] : [4, 5, 6, 7],
    kernels,
    placement: placement(memNode, share),
  };
}

function lat(cpuNode: number, memNode: number, ns: number, share = 1, loaded = false): LatencyCell {
  const c: LatencyCell = {
    cpuNode,
    memNode,
    cpu: cpuNode * 4,
    ns: { median: ns, min: ns * 0.98, max: ns * 1.05 },
    laps: 8,
    samples: [ns * 0.98, ns, ns, ns * 1.05, ns * 0.99],
    placement: placement(memNode, share),
  };
  return loaded ? { ...c, loaders: 3, loadGbps: 41.5 } : c;
}

export function twoNodeMem(): MemResult {
  return {
    schemaVersion: 1,
    kind: 'bench-mem',
    time: '2026-01-02T03:04:05.000Z',
    nodes: [0, 1].map((id) => ({
      id,
      cpus: id === 0 ? [0, 1, 2, 3] : [4, 5, 6, 7],
      memTotalBytes: 64 * 2 ** 30,
      memFreeBytes: 60 * 2 ** 30,
      distances: { 0: id === 0 ? 10 : 21, 1: id === 0 ? 21 : 10 },
      llcBytes: 32 * MiB,
    })),
    settings: {
      kernel: '6.1.0-18-amd64',
      cpuModel: 'Example CPU',
      hypervisor: false,
      thp: 'madvise',
      thpDefrag: 'madvise',
      numaBalancing: 0,
      zoneReclaimMode: 0,
      governor: 'performance',
      loadAverage: { start: [0.05, 0.1, 0.1], end: [1.2, 0.4, 0.2] },
    },
    options: {
      arrayBytes: 128 * MiB,
      latencyBytes: 256 * MiB,
      repeats: 5,
      seconds: 0.5,
      hugePages: false,
      loaded: true,
      bandwidth: true,
      latency: true,
    },
    cpuNodes: [0, 1],
    memNodes: [0, 1],
    stream: { llcBytes: 32 * MiB, arrayToCache: 4, ruleMet: true },
    bandwidth: [bw(0, 0, 40), bw(0, 1, 24, 0.973), bw(1, 0, 25), bw(1, 1, 41, 0.973)],
    latency: [lat(0, 0, 95), lat(0, 1, 151, 0.973), lat(1, 0, 149), lat(1, 1, 96, 0.973)],
    loadedLatency: [
      lat(0, 0, 180, 1, true),
      lat(0, 1, 260, 0.973, true),
      lat(1, 0, 255, 1, true),
      lat(1, 1, 182, 0.973, true),
    ],
    notes: ['hardware prefetchers were left as they are'],
    warnings: [],
  };
}

function abRun(
  variant: string,
  round: number,
  wallS: number,
  userS: number,
  systemS: number,
  otherNode: number,
  extra: Partial<AbRun> = {},
): AbRun {
  return {
    variant,
    round,
    order: 1,
    warmup: false,
    ok: true,
    exitCode: 0,
    signal: null,
    wallS,
    userS,
    systemS,
    maxRssKb: 90000,
    minorFaults: 24000,
    majorFaults: 0,
    voluntaryCtxSwitches: 12,
    involuntaryCtxSwitches: 40,
    metric: null,
    numastat: {
      0: { numa_hit: 24000, numa_miss: 0, other_node: 0 },
      1: { numa_hit: 10, numa_miss: 0, other_node: otherNode },
    },
    ...extra,
  };
}

/** Three variants over five rounds; remote is clearly slower, interleave no different. */
export function threeVariantAb(): AbResult {
  const walls = {
    default: [2.0, 2.05, 1.98, 2.02, 2.01],
    local: [1.55, 1.53, 1.56, 1.52, 1.54],
    remote: [2.6, 2.62, 2.58, 2.65, 2.61],
  };
  const runs: AbRun[] = [];
  for (const [v, ws] of Object.entries(walls))
    ws.forEach((w, i) => runs.push(abRun(v, i + 1, w, w * 0.9, w * 0.08, v === 'remote' ? 24000 : 3)));
  runs.push(abRun('remote', 6, 0.1, 0.01, 0.01, 0, { ok: false, exitCode: 1, note: 'exited with status 1' }));
  const variants = [
    { name: 'default', kind: 'default', spec: '' },
    { name: 'local', kind: 'bind', spec: '--cpunodebind=0 --membind=0' },
    { name: 'remote', kind: 'bind', spec: '--cpunodebind=0 --membind=1' },
  ] as const;
  const summary = summarize([...variants], runs, { metric: null, seed: 3 });
  return {
    schemaVersion: 1,
    kind: 'bench-ab',
    time: '2026-01-02T03:04:05.000Z',
    command: ['sysbench', 'memory', 'run'],
    nodes: twoNodeMem().nodes,
    settings: twoNodeMem().settings,
    options: { runs: 5, warmup: 0, settleS: 1, seed: 3, metric: null, numaBalancing: 'keep' },
    variants: [...variants],
    runs,
    summary,
    notes: ['remote run 6 exited with status 1: excluded from the statistics'],
    warnings: [],
  };
}
