// numakit stat: numastat's tables (byte-compatible with --numastat), per-process memory per
// node, processes ranked by remote memory with their locality (--procs), and live rates (--watch).
import { readNodeStat } from '../../discover/node_stat.js';
import { renderNumastatCompat, renderNumastatCounters, renderNumastatMeminfo } from '../../render/numastat.js';
import { meminfoJson, numastatJson, processJson, renderStatJson } from '../../render/stat_json.js';
import type { Context } from '../context.js';
import type { CommandModule } from '../options.js';
import { readWarnings } from '../warnings.js';
import { VERSION } from '../version.js';
import { parseStatArgs, STAT_DECLARATION, type StatOptions } from './stat_options.js';

/** numastat's width: NUMASTAT_WIDTH, else 80 on a terminal (numastat's `resize` probe never
 * succeeds: it reads 7 bytes), else no folding. numakit's own output folds at the terminal width. */
export function screenWidth(strict: boolean, isTTY: boolean, env: NodeJS.ProcessEnv = process.env): number {
  let w = 80;
  const e = env['NUMASTAT_WIDTH'];
  if (e !== undefined) {
    const n = parseInt(e, 10);
    w = n >= 1 && n <= 10000000 ? n : 80;
  } else if (isTTY) w = strict ? 80 : (process.stdout.columns ?? 80);
  else w = 10000000;
  return Math.max(w, 32);
}

async function runTables(o: StatOptions, ctx: Context): Promise<number> {
  const strict = o.numastat;
  const s = readNodeStat(ctx.root, { meminfo: o.meminfo || o.json, withoutSelf: true });
  const procs =
    o.specs.length > 0
      ? (await import('./stat_processes.js')).readProcesses(
          ctx,
          o,
          strict ? { pageSize: s.pageSize, hugePageSize: s.defaultHugePageSize } : undefined,
        )
      : [];
  const showCounters = o.counters || (procs.length === 0 && !o.meminfo);
  // A process shown as "no permission" is a file that could not be read: not all that was asked.
  const status = procs.some((p) => p.memory.kind !== 'ok') ? 1 : 0;
  if (o.json) {
    const parts: Record<string, unknown> = {};
    if (procs.length > 0) parts['processes'] = procs.map(processJson);
    if (o.meminfo) parts['meminfo'] = meminfoJson(s);
    if (showCounters) parts['numastat'] = numastatJson(s);
    parts['warnings'] = readWarnings(ctx);
    ctx.out(renderStatJson(parts));
    return status;
  }
  const t = {
    screenWidth: screenWidth(strict, ctx.isTTY),
    showZero: o.showZero,
    compress: o.compress,
    sort: o.sort,
    strict,
  };
  if (o.compat) {
    ctx.out(renderNumastatCompat(s, t));
    return 0;
  }
  let out = '';
  if (procs.length > 0)
    out += (await import('../../render/numastat_procs.js')).renderNumastatProcesses(procs, s.nodes, {
      ...t,
      verbose: o.verbose,
    });
  if (o.meminfo) out += renderNumastatMeminfo(s, { ...t, defaultHugeBytes: s.defaultHugePageSize });
  if (showCounters) out += renderNumastatCounters(s, t);
  ctx.out(out);
  return status;
}

const stat: CommandModule<StatOptions> = {
  synopsis: [
    '[-c] [-m] [-n] [-p PID|PATTERN]... [-s[NODE]] [-v] [-z] [PID|PATTERN...] [--numastat | --json]',
    '-V',
    '--procs [--top N] [--window SEC] [--json]',
    '--cgroup [PATH] [--top N] [--window SEC] [--json]',
    '--watch SEC [--count N] [--json]',
  ],
  description: `NUMA statistics, as numastat shows them, plus where processes run versus where their memory is.
With no option: the per-node allocation counters in pages (numa_hit numa_miss numa_foreign
interleave_hit local_node other_node), numastat's default table.

Numbers are MB (2^20 bytes) like numastat's. -m on the running system leaves out numakit's
own pages as its numa_maps holds them (about 35 MB of Mapped and some MB of AnonPages and
Inactive(anon) on the node it runs on), so the table shows the node as it is without numakit;
MemFree is as read (pages freed at exit stay off it), a snapshot's figures as recorded.
Other users' processes need root: their memory shows
as "no permission", never as zero (exit 1). A PID that has exited is skipped; a PATTERN that matches
nothing is an error (exit 1). NUMASTAT_WIDTH sets the line width tables fold at, as for numastat.
See also: numakit top (live view).`,
  ...STAT_DECLARATION,
  parse: parseStatArgs,
  exit: { 1: 'no process matches a PID or PATTERN, or a file cannot be read (a process shown as "no permission")' },
  async run(o, ctx) {
    if (o.version) {
      ctx.out(`numakit stat ${VERSION} (numastat 2.0.x compatible)\n`);
      return 0;
    }
    if (o.procs) return (await import('./stat_processes.js')).runProcs(o, ctx);
    if (o.cgroup) return (await import('./stat_cgroups.js')).runCgroups(o, ctx);
    if (o.watch !== null)
      return (await import('./stat_watch.js')).runWatch(ctx, {
        intervalSeconds: o.watch,
        count: o.count,
        json: o.json,
      });
    return await runTables(o, ctx);
  },
};
export default stat;
