// bench ab from start to result: check every variant before anything changes, then run the
// workload in shuffled rounds (each variant once a round, a settle pause between runs), set up
// and tear down each variant around its run, and put everything back on the way out, whether
// the runs ended, failed or were interrupted (SIGINT/SIGTERM abort `signal`).
import { setTimeout as sleep } from 'node:timers/promises';
import { readSystem } from '../actuate/run_binding.js';
import { openSystem, type System } from '../actuate/system.js';
import { openSystemctl } from '../actuate/systemctl.js';
import { discoverTopology } from '../discover/topology.js';
import type { AbResult, AbRun } from '../model/bench.js';
import type { Change, ChangeSet } from '../model/change.js';
import { NumakitError } from '../model/errors.js';
import type { SysRoot } from '../sysfs/root.js';
import { startAgent } from './ab_agent.js';
import { applyChanges, numaBalancingPlan, profilePlan, requireWritable, undoChanges } from './ab_changes.js';
import { summarize } from './ab_summary.js';
import type { ParsedVariant } from '../model/bench.js';
import { checkBinding, matchMetric, runWorkload, type WorkloadEnv } from './ab_workload.js';
import { benchNodes, loadAverage, readBenchSettings } from './settings.js';
import { seededRandom, shuffled } from './stats.js';

/** The options the result records (runs, warmup, settle, seed, --numa-balancing), the metric as a RegExp. */
export interface AbArgs extends Omit<AbResult['options'], 'metric'> {
  readonly command: readonly string[];
  readonly variants: readonly ParsedVariant[];
  readonly metric: { readonly regex: RegExp; readonly better: 'higher' | 'lower' } | null;
  readonly stateDir: string;
  /** What `numakit apply --profile NAME` would change here: a tuned:NAME variant's changes (cli/profile_source.ts). */
  readonly profileChanges: (system: System, name: string) => readonly Change[];
  /** How to start numakit itself, for the agent variant: [node, ...flags, entry point] (src/cli/self.ts). */
  readonly self: readonly string[];
  readonly progress?: (done: number, total: number, what: string) => void;
  /** One line per thing put back on the way out. */
  readonly log: (line: string) => void;
}

/** Every check that can fail, done before the first change or run. */
function preflight(a: AbArgs, env: Omit<WorkloadEnv, 'signal' | 'nodes'>, system: System): void {
  for (const v of a.variants) {
    if (v.kind === 'bind') {
      try {
        checkBinding(env, v.binding!);
      } catch (e) {
        throw new NumakitError(`bench ab: variant '${v.name}': ${(e as Error).message}`);
      }
    } else if (v.kind === 'tuned')
      requireWritable(
        system,
        profilePlan(system, a.profileChanges(system, v.profile!), { holdsNumaBalancing: a.numaBalancing !== 'keep' }),
        `variant '${v.name}'`,
      );
    else if (v.kind === 'agent' && process.getuid?.() !== 0 && !v.agentArgs!.includes('--advise')) {
      throw new NumakitError(
        `bench ab: variant '${v.name}' needs root: numakit agent moves threads and pages and sets kernel.numa_balancing; nothing was changed`,
      );
    }
  }
  if (a.numaBalancing !== 'keep')
    requireWritable(system, numaBalancingPlan(system, a.numaBalancing), `--numa-balancing ${a.numaBalancing}`);
}

function schedule(a: AbArgs): { v: ParsedVariant; round: number; order: number; warmup: boolean }[] {
  const rand = seededRandom(a.seed);
  const out: { v: ParsedVariant; round: number; order: number; warmup: boolean }[] = [];
  for (let w = 1; w <= a.warmup; w++)
    a.variants.forEach((v, i) => out.push({ v, round: w, order: i + 1, warmup: true }));
  for (let r = 1; r <= a.runs; r++)
    shuffled(a.variants, rand).forEach((v, i) => out.push({ v, round: r, order: i + 1, warmup: false }));
  return out;
}

function warnings(a: AbArgs, balancing: number | null): string[] {
  const out: string[] = [];
  const binds = a.variants.some((v) => v.kind === 'bind');
  if (binds && balancing === 1 && a.numaBalancing === 'keep') {
    out.push(
      'kernel.numa_balancing is 1 (AutoNUMA) while comparing bindings: it migrates the pages of unbound variants during their runs, so they measure placement plus migration; --numa-balancing off compares the placements alone',
    );
  }
  if (a.variants.some((v) => v.kind === 'agent') && a.numaBalancing === 'on')
    out.push(
      '--numa-balancing on with an agent variant: numakit agent turns AutoNUMA off while it runs (unless --numa-balancing keep is in its options)',
    );
  return out;
}

export async function benchAb(root: SysRoot, a: AbArgs, signal: AbortSignal): Promise<AbResult> {
  const topo = discoverTopology(root, { devices: false, caches: false });
  const settings = readBenchSettings(root, topo);
  const native = await import('../native/index.js');
  const sys = readSystem(root);
  const system = openSystem(root, { services: openSystemctl() });
  const env: WorkloadEnv = { native, root, sys, nodes: topo.nodes.map((n) => n.id), signal };
  preflight(a, env, system);
  const start = loadAverage(root);
  const time = new Date().toISOString();
  const plan = schedule(a);
  const runs = await runSchedule(a, env, system, plan);
  if (signal.aborted)
    throw new NumakitError(
      `bench ab: interrupted after ${runs.length} of ${plan.length} runs; the workload was stopped and every change put back`,
      130,
    );
  return {
    schemaVersion: 1,
    kind: 'bench-ab',
    time,
    command: [...a.command],
    nodes: benchNodes(root, topo),
    settings: { ...settings, loadAverage: { start, end: loadAverage(root) } },
    options: {
      runs: a.runs,
      warmup: a.warmup,
      settleS: a.settleS,
      seed: a.seed,
      metric: a.metric === null ? null : { regex: a.metric.regex.source, better: a.metric.better },
      numaBalancing: a.numaBalancing,
    },
    variants: a.variants.map((v) => ({ name: v.name, kind: v.kind, spec: v.spec })),
    runs,
    summary: summarize(a.variants, runs, { metric: a.metric, seed: a.seed }),
    notes: runs
      .filter((r) => !r.ok)
      .map((r) => `${r.variant} run ${r.round}${r.warmup ? ' (warmup)' : ''} ${r.note}: excluded from the statistics`),
    warnings: warnings(a, settings.numaBalancing),
  };
}

type Scheduled = ReturnType<typeof schedule>[number];

/**
 * The runs in their shuffled order, settling between them, until done or interrupted. With
 * --numa-balancing on or off the setting is held for the whole bench and put back after, also
 * when a run fails or the bench is interrupted.
 */
async function runSchedule(a: AbArgs, env: WorkloadEnv, system: System, plan: Scheduled[]): Promise<AbRun[]> {
  const runs: AbRun[] = [];
  const undo: { what: string; run: () => Promise<void> | void }[] = [];
  try {
    if (a.numaBalancing !== 'keep') {
      const cs = applyChanges(system, numaBalancingPlan(system, a.numaBalancing), {
        stateDir: a.stateDir,
        source: 'bench ab --numa-balancing',
      });
      if (cs !== null)
        undo.push({
          what: `kernel.numa_balancing (change set ${cs.id})`,
          run: () => undoChanges(system, cs, a.stateDir),
        });
    }
    for (const [i, p] of plan.entries()) {
      if (env.signal.aborted) break;
      if (i > 0 && a.settleS > 0)
        await sleep(a.settleS * 1000, undefined, { signal: env.signal }).catch(() => undefined);
      if (env.signal.aborted) break;
      runs.push(await oneRun(a, env, system, p));
      a.progress?.(i + 1, plan.length, `${p.v.name} run ${p.round}${p.warmup ? ' (warmup)' : ''}`);
    }
  } finally {
    for (const u of undo.reverse()) {
      await u.run();
      a.log(`bench ab: restored ${u.what}`);
    }
  }
  return runs;
}

/** Sets the variant up, runs the workload once, tears the variant down (also on failure). */
async function oneRun(a: AbArgs, env: WorkloadEnv, system: System, p: Scheduled): Promise<AbRun> {
  const v = p.v;
  let cs: ChangeSet | null = null;
  let agent: Awaited<ReturnType<typeof startAgent>> | null = null;
  try {
    if (v.kind === 'tuned')
      cs = applyChanges(
        system,
        profilePlan(system, a.profileChanges(system, v.profile!), { holdsNumaBalancing: a.numaBalancing !== 'keep' }),
        { stateDir: a.stateDir, source: `bench ab variant ${v.name}` },
      );
    // The agent journals into the bench's state directory, beside the bench's own change sets.
    if (v.kind === 'agent')
      agent = await startAgent(
        a.self,
        v.agentArgs!.includes('--state-dir') ? v.agentArgs! : ['--state-dir', a.stateDir, ...v.agentArgs!],
      );
    return await measuredRun(a, env, p);
  } finally {
    // Torn down after every run; said on stderr when the bench was interrupted.
    const said = env.signal.aborted ? a.log : () => {};
    if (agent !== null) {
      const note = await agent.stop();
      if (note !== null) a.log(`bench ab: ${v.name} run ${p.round}: ${note}`);
      said("bench ab: restored numakit agent's changes (stopped with SIGTERM, it put back what it changed)");
    }
    if (cs !== null) {
      undoChanges(system, cs, a.stateDir);
      said(`bench ab: restored profile ${v.profile} (change set ${cs.id})`);
    }
  }
}

/** The workload once under the variant's binding: its figures, its --metric, and whether it counts. */
async function measuredRun(a: AbArgs, env: WorkloadEnv, p: Scheduled): Promise<AbRun> {
  const v = p.v;
  const f = await runWorkload(env, a.command, v.binding);
  const metric = a.metric === null ? null : matchMetric(a.metric.regex, f.output);
  const exitedOk = f.exitCode === 0;
  if (exitedOk && a.metric !== null && metric === null && !env.signal.aborted) {
    const last = f.output.trim().split('\n').at(-1) ?? '';
    throw new NumakitError(
      `bench ab: --metric '${a.metric.regex.source}' matched nothing in the output of ${v.name} run ${p.round} (its last line: '${last.slice(0, 120)}')`,
    );
  }
  const note =
    f.signal !== null ? `was killed by ${f.signal}` : exitedOk ? undefined : `exited with status ${f.exitCode}`;
  const { output: _output, ...figures } = f;
  return {
    variant: v.name,
    round: p.round,
    order: p.order,
    warmup: p.warmup,
    ok: exitedOk && !env.signal.aborted,
    metric,
    ...figures,
    ...(note === undefined ? {} : { note }),
  };
}
