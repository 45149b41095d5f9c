// numakit stat: numastat's tables (byte-compatible with --numastat), per-process memory per
// node, processes ranked by remote memory with their locality (--procs), and live rates (--watch).
import { readNodeStat } from '../../discover/node_stat.js';
import { findPids, readProcessMemory, sampleProcesses, type NumastatUnits } from '../../discover/processes.js';
import { NumakitError } from '../../model/errors.js';
import type { ProcessMemoryInfo } from '../../model/stat.js';
import { rankByRemote } from '../../policy/locality.js';
import { renderNumastatCompat, renderNumastatCounters, renderNumastatMeminfo } from '../../render/numastat.js';
import { renderNumastatProcesses } from '../../render/numastat_procs.js';
import { meminfoJson, numastatJson, processJson, rankedJson, renderStatJson } from '../../render/stat_json.js';
import { renderStatProcs } from '../../render/stat_procs.js';
import type { Context } from '../context.js';
import type { Command } from '../options.js';
import { readWarnings } from '../warnings.js';
import { VERSION } from '../version.js';
import { parseStatArgs, STAT_DECLARATION, type StatOptions } from './stat_options.js';
import { runWatch } from './stat_watch.js';

/** numastat's width: NUMASTAT_WIDTH, else 80 on a terminal (numastat's `resize` probe never
 * succeeds: it reads 7 bytes), else no folding. numakit's own output folds at the terminal width. */
export function screenWidth(strict: boolean, isTTY: boolean, env: NodeJS.ProcessEnv = process.env): number {
  let w = 80;
  const e = env['NUMASTAT_WIDTH'];
  if (e !== undefined) {
    const n = parseInt(e, 10);
    w = n >= 1 && n <= 10000000 ? n : 80;
  } else if (isTTY) w = strict ? 80 : process.stdout.columns ?? 80;
  else w = 10000000;
  return Math.max(w, 32);
}

function readProcesses(ctx: Context, o: StatOptions, units: NumastatUnits | undefined): ProcessMemoryInfo[] {
  const { pids, unmatched } = findPids(ctx.root, o.specs);
  if (unmatched.length > 0) throw new NumakitError(`stat: no process matches ${unmatched.map((u) => `'${u}'`).join(', ')}`);
  const procs: ProcessMemoryInfo[] = [];
  for (const pid of pids) {
    const p = readProcessMemory(ctx.root, pid, { units, policies: o.json });
    if (p === null) ctx.err(`numakit: stat: PID ${pid}: no such process (skipped)\n`);
    else procs.push(p);
  }
  if (procs.length === 0) throw new NumakitError(`stat: none of the processes exists (${pids.join(', ')})`);
  if (procs.some((p) => p.memory.kind !== 'ok')) ctx.err('numakit: stat: some numa_maps are readable only by root or their owner: run numakit as root\n');
  return procs;
}

function runTables(o: StatOptions, ctx: Context): number {
  const strict = o.numastat;
  const s = readNodeStat(ctx.root, { meminfo: o.meminfo || o.json });
  const procs = o.specs.length > 0 ? readProcesses(ctx, o, strict ? { pageSize: s.pageSize, hugePageSize: s.defaultHugePageSize } : undefined) : [];
  const showCounters = o.counters || (procs.length === 0 && !o.meminfo);
  if (o.json) {
    const parts: Record<string, unknown> = {};
    if (procs.length > 0) parts['processes'] = procs.map(processJson);
    if (o.meminfo) parts['meminfo'] = meminfoJson(s);
    if (showCounters) parts['numastat'] = numastatJson(s);
    parts['warnings'] = readWarnings(ctx);
    ctx.out(renderStatJson(parts));
    return 0;
  }
  const t = { screenWidth: screenWidth(strict, ctx.isTTY), showZero: o.showZero, compress: o.compress, sort: o.sort, strict };
  if (o.compat) {
    ctx.out(renderNumastatCompat(s, t));
    return 0;
  }
  let out = '';
  if (procs.length > 0) out += renderNumastatProcesses(procs, s.nodes, { ...t, verbose: o.verbose });
  if (o.meminfo) out += renderNumastatMeminfo(s, { ...t, defaultHugeBytes: s.defaultHugePageSize });
  if (showCounters) out += renderNumastatCounters(s, t);
  ctx.out(out);
  return 0;
}

async function runProcs(o: StatOptions, ctx: Context): Promise<number> {
  const samples = await sampleProcesses(ctx.root, { windowMs: ctx.root.isReal ? o.windowSeconds * 1000 : 0 });
  const ranked = rankByRemote(samples).slice(0, o.top);
  if (o.json) ctx.out(renderStatJson({ windowSeconds: ctx.root.isReal ? o.windowSeconds : 0, processes: ranked.map(rankedJson), warnings: readWarnings(ctx) }));
  else ctx.out(renderStatProcs(ranked, { windowSeconds: ctx.root.isReal ? o.windowSeconds : 0, total: samples.length }));
  return 0;
}

const stat: Command<StatOptions> = {
  summary: 'numastat and more: per-node counters, meminfo, process memory per node, locality',
  synopsis: [
    '[-c] [-m] [-n] [-p PID|PATTERN]... [-s[NODE]] [-v] [-z] [PID|PATTERN...] [--numastat | --json]',
    '-V',
    '--procs [--top N] [--window SEC] [--json]',
    '--watch SEC [--count N] [--json]',
  ],
  description: `NUMA statistics, as numastat shows them, plus where processes run versus where their memory is.
With no option: the per-node allocation counters in pages (numa_hit numa_miss numa_foreign
interleave_hit local_node other_node), numastat's default table.

Numbers are MB (2^20 bytes) like numastat's. Other users' processes need root: their memory shows
as "no permission", never as zero. A PID that has exited is skipped; a PATTERN that matches
nothing is an error (exit 1). NUMASTAT_WIDTH sets the line width tables fold at, as for numastat.
See also: numakit top (live view).`,
  ...STAT_DECLARATION,
  parse: parseStatArgs,
  exit: { 1: 'no process matches a PID or PATTERN, or a file cannot be read' },
  async run(o, ctx) {
    if (o.version) {
      ctx.out(`numakit stat ${VERSION} (numastat 2.0.x compatible)\n`);
      return 0;
    }
    if (o.procs) return runProcs(o, ctx);
    if (o.watch !== null) return runWatch(ctx, { intervalSeconds: o.watch, count: o.count, json: o.json });
    return runTables(o, ctx);
  },
};
export default stat;
