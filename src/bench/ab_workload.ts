// One run of the workload for bench ab. The variant's policy and affinity are set on this (the
// main) thread just before spawn and put back just after: the child, forked from this thread,
// inherits them, and no numakit start-up is counted in the workload's time. CPU, faults and
// context switches are getrusage(RUSAGE_CHILDREN) across the child's life (the whole process
// tree that it waited for); numastat counters are system-wide deltas per node.
import { type ChildProcess, spawn } from 'node:child_process';
import { NumakitError } from '../model/errors.js';
import type { AbRun } from '../model/bench.js';
import type * as Native from '../native/index.js';
import type { RunArgs } from '../model/run_args.js';
import { applyBinding, type SystemSets } from '../actuate/run_binding.js';
import { readNodeNumastat } from '../sysfs/node_numastat.js';
import type { SysRoot } from '../sysfs/root.js';

export type RunFigures = Omit<AbRun, 'variant' | 'round' | 'order' | 'warmup' | 'ok' | 'metric'> & {
  readonly output: string;
};

export interface WorkloadEnv {
  readonly native: typeof Native;
  readonly root: SysRoot;
  readonly sys: SystemSets;
  readonly nodes: readonly number[];
  readonly signal: AbortSignal;
}

const TAIL = 1 << 20;

function numastat(root: SysRoot, nodes: readonly number[]): Record<string, Record<string, number>> {
  return Object.fromEntries(nodes.map((n) => [String(n), readNodeNumastat(root, n) ?? {}]));
}

function delta(
  a: Record<string, Record<string, number>>,
  b: Record<string, Record<string, number>>,
): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const [node, counters] of Object.entries(b)) {
    out[node] = Object.fromEntries(Object.entries(counters).map(([k, v]) => [k, v - (a[node]?.[k] ?? 0)]));
  }
  return out;
}

/** Spawns `cmd` with `binding` inherited from this thread, which is put back at once. */
function spawnBound(env: WorkloadEnv, cmd: readonly string[], binding: RunArgs | undefined) {
  const { native } = env;
  const saved = binding === undefined ? undefined : { policy: native.getMempolicy(), cpus: native.getAffinity(0) };
  try {
    if (binding !== undefined) applyBinding(native, binding, { sys: env.sys, root: env.root, note: () => {} });
    return spawn(cmd[0]!, cmd.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  } finally {
    if (saved !== undefined) {
      native.setMempolicy(saved.policy);
      native.setAffinity(0, saved.cpus);
    }
  }
}

/** Checks that `binding` can be applied here (nodes exist, have memory or CPUs), changing nothing. */
export function checkBinding(env: Omit<WorkloadEnv, 'signal' | 'nodes'>, binding: RunArgs): void {
  const saved = { policy: env.native.getMempolicy(), cpus: env.native.getAffinity(0) };
  try {
    applyBinding(env.native, binding, { sys: env.sys, root: env.root, note: () => {} });
  } finally {
    env.native.setMempolicy(saved.policy);
    env.native.setAffinity(0, saved.cpus);
  }
}

export async function runWorkload(
  env: WorkloadEnv,
  cmd: readonly string[],
  binding: RunArgs | undefined,
): Promise<RunFigures> {
  const before = numastat(env.root, env.nodes);
  const ru0 = env.native.childrenRusage();
  const t0 = process.hrtime.bigint();
  const child = spawnBound(env, cmd, binding);
  let output = '';
  const keep = (d: Buffer) => {
    output = (output + d.toString('utf8')).slice(-TAIL);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const kill = () => killGroup(child);
  env.signal.addEventListener('abort', kill, { once: true });
  try {
    const exit = await exitOf(child, cmd, t0);
    const ru = env.native.childrenRusage();
    const after = numastat(env.root, env.nodes);
    if (child.stdout!.readableEnded === false) await new Promise((r) => child.once('close', r));
    return {
      exitCode: exit.code,
      signal: exit.signal,
      wallS: exit.wallS,
      userS: ru.userS - ru0.userS,
      systemS: ru.systemS - ru0.systemS,
      maxRssKb: ru.maxRssKb,
      minorFaults: ru.minorFaults - ru0.minorFaults,
      majorFaults: ru.majorFaults - ru0.majorFaults,
      voluntaryCtxSwitches: ru.voluntaryCtxSwitches - ru0.voluntaryCtxSwitches,
      involuntaryCtxSwitches: ru.involuntaryCtxSwitches - ru0.involuntaryCtxSwitches,
      numastat: delta(before, after),
      output,
    };
  } finally {
    env.signal.removeEventListener('abort', kill);
  }
}

/** SIGTERM to the workload's process group, SIGKILL 3 s later if it has not exited. */
function killGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, 'SIGTERM');
    setTimeout(
      () => child.exitCode === null && child.signalCode === null && process.kill(-child.pid!, 'SIGKILL'),
      3000,
    ).unref();
  } catch (e) {
    // ESRCH: the group has already exited, which is what the kill wants; shown only for debugging.
    if (process.env.NUMAKIT_DEBUG)
      process.stderr.write(`bench ab: kill of the workload's group: ${(e as Error).message}\n`);
  }
}

/**
 * How the workload ended, and its wall time from `t0` to its exit; a command that cannot be
 * started is exit 127 (not found) or 126, as a shell says.
 */
function exitOf(
  child: ChildProcess,
  cmd: readonly string[],
  t0: bigint,
): Promise<{ code: number | null; signal: string | null; wallS: number }> {
  return new Promise((resolve, reject) => {
    child.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        new NumakitError(
          `bench ab: cannot run '${cmd[0]}': ${e.code === 'ENOENT' ? 'No such file or directory' : e.message}`,
          e.code === 'ENOENT' ? 127 : 126,
        ),
      ),
    );
    child.once('exit', (code, signal) => resolve({ code, signal, wallS: Number(process.hrtime.bigint() - t0) / 1e9 }));
  });
}

/** The last match of `re`'s first group in `output`, as a number; null when none. */
export function matchMetric(re: RegExp, output: string): number | null {
  const all = [...output.matchAll(new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`))];
  const last = all.at(-1)?.[1];
  if (last === undefined) return null;
  const n = Number(last.replace(/,/g, ''));
  return Number.isFinite(n) ? n : null;
}
