// stat's per-process modes, loaded only when asked for: -p/PIDs (numastat's memory per node of
// each process) and --procs (every process by remote memory, with its locality).
import { readNumaBalancing, readTaskNumaFaults } from '../../discover/access_locality.js';
import { accessFromSamples, accessLocality } from '../../policy/access_locality.js';
import { findPids, readProcessMemory, type NumastatUnits } from '../../discover/processes.js';
import { readDetails, sampleProcessesThreadsLater } from '../../discover/process_sampler.js';
import type { AccessLocality } from '../../model/access_locality.js';
import { othersInvisible } from '../../sysfs/proc_mount.js';
import { NumakitError } from '../../model/errors.js';
import { findMemPmu } from '../../sysfs/pmu.js';
import type { ProcessMemoryInfo, ProcessSample } from '../../model/stat.js';
import { inRankOrder, type RankedProcess } from '../../policy/locality.js';
import { rankedJson, renderStatJson } from '../../render/stat_json.js';
import { noPermissionWhy, renderStatProcs, type ProcReader } from '../../render/stat_procs.js';
import type { Context } from '../context.js';
import { withoutSelf } from '../self.js';
import { readWarnings } from '../warnings.js';
import type { StatOptions } from './stat_options.js';

/** Who read /proc: this user, root, or whoever took the snapshot. */
function reader(ctx: Context): ProcReader {
  return !ctx.root.isReal ? 'snapshot' : process.getuid?.() === 0 ? 'root' : 'user';
}

export function readProcesses(ctx: Context, o: StatOptions, units: NumastatUnits | undefined): ProcessMemoryInfo[] {
  const { pids, unmatched, names } = findPids(ctx.root, o.specs);
  if (unmatched.length > 0)
    throw new NumakitError(`stat: no process matches ${unmatched.map((u) => `'${u}'`).join(', ')}`);
  const procs: ProcessMemoryInfo[] = [];
  for (const pid of pids) {
    const name = names.get(pid);
    const p = readProcessMemory(ctx.root, pid, { units, policies: o.json, ...(name === undefined ? {} : { name }) });
    if (p === null) ctx.err(`numakit: stat: PID ${pid}: no such process (skipped)\n`);
    else procs.push(p);
  }
  if (procs.length === 0) throw new NumakitError(`stat: none of the processes exists (${pids.join(', ')})`);
  if (procs.some((p) => p.memory.kind !== 'ok'))
    ctx.err(
      `numakit: stat: ${procs
        .filter((p) => p.memory.kind !== 'ok')
        .map((p) => `PID ${p.pid}`)
        .join(', ')}: ${noPermissionWhy(reader(ctx))}\n`,
    );
  return procs;
}

/**
 * The PMU source of ACCESS where the CPU has one (it wins over NUMA faults for the processes it
 * sampled: real accesses, not a sample of hinting faults), sampled over another --window; or why
 * not (null reason: a snapshot, where only the faults it carries count). koffi is loaded only
 * when a PMU is there.
 */
async function pmuAccess(
  ctx: Context,
  o: StatOptions,
  pids: readonly number[],
): Promise<{ kind: 'ok'; access: ReadonlyMap<number, AccessLocality> } | { kind: 'unavailable'; why?: string }> {
  if (!ctx.root.isReal || pids.length === 0) return { kind: 'unavailable' };
  const pmu = findMemPmu(ctx.root);
  if (pmu.kind === 'absent') return { kind: 'unavailable', why: pmu.why };
  const { samplePmuMemory } = await import('../../discover/pmu_access.js');
  const r = await samplePmuMemory(ctx.root, pids, { windowMs: o.windowSeconds * 1000 });
  return r.kind === 'ok' ? { kind: 'ok', access: accessFromSamples(r.samples, r.where) } : r;
}

/**
 * The first `top` ranked processes with their name, command line and allowed CPUs and nodes
 * (status and cmdline, read for these only: ranking needs memory and CPU nodes); a process gone
 * meanwhile leaves its place to the next. `hidden` counts those whose status was refused.
 */
function topWithDetails(
  ctx: Context,
  ranked: Iterable<RankedProcess<ProcessSample>>,
  top: number,
): { rows: RankedProcess<ProcessSample>[]; hidden: number } {
  const rows: RankedProcess<ProcessSample>[] = [];
  let hidden = 0;
  // Stops at the last row, not at the next one's turn: the next ranked would cost its threads' reads.
  for (const r of top > 0 ? ranked : []) {
    const sample = readDetails(ctx.root, r.sample);
    if (sample === 'refused') hidden++;
    else if (sample !== null && rows.push({ ...r, sample }) >= top) break;
  }
  return { rows, hidden };
}

export async function runProcs(o: StatOptions, ctx: Context): Promise<number> {
  let hidden = 0;
  // Each thread's stat (where it ran) is read only for the processes that can rank among the
  // first --top: remote memory is at most a process's memory, read for all of them first.
  const sampled = await sampleProcessesThreadsLater(ctx.root, {
    windowMs: ctx.root.isReal ? o.windowSeconds * 1000 : 0,
    counts: (c) => void (hidden = c.hidden),
    statusLater: true,
  });
  const samples = withoutSelf(sampled.samples, ctx);
  const invisible = othersInvisible(ctx.root);
  const top = topWithDetails(ctx, inRankOrder(samples, sampled.withThreads), o.top);
  const ranked = top.rows;
  hidden += top.hidden;
  const balancing = readNumaBalancing(ctx.root);
  const access = new Map(
    ranked.map((r) => [r.sample.pid, accessLocality(readTaskNumaFaults(ctx.root, r.sample.pid), balancing)]),
  );
  const pmu = await pmuAccess(
    ctx,
    o,
    ranked.map((r) => r.sample.pid),
  );
  if (pmu.kind === 'ok') for (const [pid, a] of pmu.access) access.set(pid, a);
  if (o.json)
    ctx.out(
      renderStatJson({
        windowSeconds: ctx.root.isReal ? o.windowSeconds : 0,
        processes: ranked.map((r) => rankedJson(r, access.get(r.sample.pid))),
        hiddenProcesses: hidden,
        othersInvisible: invisible,
        warnings: readWarnings(ctx),
      }),
    );
  else
    ctx.out(
      renderStatProcs(ranked, {
        windowSeconds: ctx.root.isReal ? o.windowSeconds : 0,
        total: samples.length,
        reader: reader(ctx),
        access,
        ...(pmu.kind === 'unavailable' ? { pmuWhy: pmu.why } : {}),
        hidden,
        invisible,
      }),
    );
  return 0;
}
