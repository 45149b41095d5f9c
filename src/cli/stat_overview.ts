// The overview's stat section: how often allocations missed their node since boot, and the
// processes with the most memory away from where they run (CPU time since each started: the
// overview does not wait for a sampling window).
import { NumakitError } from '../model/errors.js';
import type { NodeStat } from '../model/stat.js';
import type { Context } from './context.js';

const SHOW = 3;
const MIN_REMOTE = 64 * 1024 * 1024;

export async function statOverview(ctx: Context): Promise<{ text: string; data: unknown } | null> {
  const { readNodeStat } = await import('../discover/node_stat.js');
  const { createSampler } = await import('../discover/process_sampler.js');
  const { rankByRemote } = await import('../policy/locality.js');
  const { renderStatOverview, missShare } = await import('../render/stat_overview.js');
  const { rankedJson } = await import('../render/stat_json.js');
  let s: NodeStat;
  try {
    s = readNodeStat(ctx.root, { meminfo: false });
  } catch (e) {
    // No NUMA statistics here (no node directories, no readable numastat): said in one line.
    // Anything else is a failure the overview names and counts (commands/overview.ts).
    if (!(e instanceof NumakitError)) throw e;
    return { text: `stat: not shown: ${e.message.split('\n')[0]}\n`, data: null };
  }
  const { withoutSelf } = await import('./self.js');
  const ranked = rankByRemote(withoutSelf(createSampler(ctx.root).sample(0), ctx))
    .filter((r) => r.remoteBytes >= MIN_REMOTE)
    .slice(0, SHOW);
  const counters = s.nodes.map((n, i) => ({
    node: n,
    numaHit: s.numastat[i]?.['numa_hit'] ?? null,
    numaMiss: s.numastat[i]?.['numa_miss'] ?? null,
    missPercent: missShare(s.numastat[i]!),
  }));
  return {
    text: renderStatOverview(s, ranked),
    data: { nodes: counters, mostRemote: ranked.map((r) => rankedJson(r)) },
  };
}
