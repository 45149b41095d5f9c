// numakit stat --cgroup [PATH]: sample every process over the window, group them by the cgroup
// their memory is charged to, and show cgroups by remote memory (or the one PATH in full).
import { cgroupGroups, readCgroupFacts } from '../../discover/cgroup_numa.js';
import { readPageSize } from '../../discover/node_stat.js';
import { sampleProcesses } from '../../discover/process_sampler.js';
import { NumakitError } from '../../model/errors.js';
import { cgroupRow, rankCgroups, type CgroupRow } from '../../policy/cgroup_rank.js';
import { renderStatJson } from '../../render/stat_json.js';
import { cgroupJson, renderCgroupDetail, renderCgroupTable } from '../../render/stat_cgroups.js';
import { hasCgroupV2 } from '../../sysfs/cgroup_v2.js';
import type { Context } from '../context.js';
import { withoutSelf } from '../self.js';
import { readWarnings } from '../warnings.js';
import type { StatOptions } from './stat_options.js';

/** PATH with no sampled process: its own files still say what it allows and holds. */
function emptyRow(ctx: Context, path: string): CgroupRow {
  const facts = readCgroupFacts(
    ctx.root,
    { path, version: hasCgroupV2(ctx.root) ? 2 : 1 },
    null,
    readPageSize(ctx.root),
  );
  if (facts.numaStat === null && facts.cpus === null && facts.mems === null)
    throw new NumakitError(
      `stat: cgroup ${path}: no such cgroup (no memory.numa_stat or cpuset files, no process in it)`,
    );
  return cgroupRow(facts, []);
}

export async function runCgroups(o: StatOptions, ctx: Context): Promise<number> {
  const samples = withoutSelf(
    await sampleProcesses(ctx.root, { windowMs: ctx.root.isReal ? o.windowSeconds * 1000 : 0 }),
    ctx,
  );
  let rows = rankCgroups(cgroupGroups(ctx.root, samples, o.cgroupPath).map((g) => cgroupRow(g.facts, g.members)));
  if (o.cgroupPath !== null && rows.length === 0) rows = [emptyRow(ctx, o.cgroupPath)];
  if (o.json) {
    ctx.out(
      renderStatJson({
        windowSeconds: ctx.root.isReal ? o.windowSeconds : 0,
        cgroups: rows.slice(0, o.top).map(cgroupJson),
        total: rows.length,
        warnings: readWarnings(ctx),
      }),
    );
    return 0;
  }
  ctx.out(o.cgroupPath !== null ? renderCgroupDetail(rows[0]!) : renderCgroupTable(rows, o.top));
  return 0;
}
