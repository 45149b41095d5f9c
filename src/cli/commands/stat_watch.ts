// numakit stat --watch: sample the counters every interval until Ctrl-C (or --count lines).
import { readNodeStat } from '../../discover/node_stat.js';
import {
  isoLocalTime,
  renderWatchHeader,
  renderWatchJson,
  renderWatchLine,
  hasTiering,
  watchRates,
  type WatchPoint,
} from '../../render/stat_watch.js';
import { tieringCounters } from '../../model/tiering_counters.js';
import { readNodeMeminfo } from '../../sysfs/node_meminfo.js';
import { readNodeVmstat } from '../../sysfs/node_vmstat.js';
import type { Context } from '../context.js';
import { wakeableWait, type Wait } from '../wait.js';

function point(ctx: Context): WatchPoint {
  const s = readNodeStat(ctx.root, { meminfo: false });
  const nodes = new Map(
    s.nodes.map((n, i) => [
      n,
      {
        counters: { ...s.numastat[i]!, ...tieringCounters(readNodeVmstat(ctx.root, n)) },
        freeBytes: readNodeMeminfo(ctx.root, n)?.['MemFree'] ?? null,
      },
    ]),
  );
  return { nodes, atMs: performance.now() };
}

/** The text line's time (HH:MM:SS, like vmstat -t); JSON lines carry the full ISO 8601 time with its offset. */
function clock(json: boolean): string {
  const now = new Date();
  return json ? isoLocalTime(now) : now.toTimeString().slice(0, 8);
}

export async function runWatch(
  ctx: Context,
  o: { intervalSeconds: number; count: number | null; json: boolean },
): Promise<number> {
  let prev = point(ctx);
  let stop = false;
  let wait: Wait | null = null;
  const onSignal = () => {
    stop = true;
    wait?.wake();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  // The header after the handlers: a SIGTERM sent on seeing it (a test, a supervisor) is handled.
  if (!o.json) ctx.out(renderWatchHeader([...prev.nodes.keys()], { tiering: hasTiering(prev) }));
  try {
    for (let lines = 0; !stop && (o.count === null || lines < o.count); lines++) {
      wait = wakeableWait(o.intervalSeconds * 1000);
      await wait.done;
      if (stop) break;
      const cur = point(ctx);
      const rates = watchRates(prev, cur);
      ctx.out(o.json ? renderWatchJson(rates, clock(true)) : renderWatchLine(rates, clock(false)));
      prev = cur;
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  return 0;
}
