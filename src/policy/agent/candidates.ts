// Which processes the agent manages. Steps, so that each costly read is made only for the
// processes that passed the cheaper ones:
//   prescreen(brief, ctx, opts) /proc/PID/status and cmdline -> null or why not (before its threads)
//   screen(brief, ctx, opts)   the same plus its CPU use (from its threads' stat) -> null (candidate) or why not
//   memoryPin(view)            after numa_maps: a memory policy someone set (bind, interleave, prefer)
// A busy process younger than --min-age is judged again once it is that old.
// Never: kernel threads, PID 1, the agent itself. Unless --override-pins: processes whose CPU
// affinity differs from what they could have (their cgroup cpuset, else every CPU) and from
// what the agent itself set, and processes with a non-default memory policy.
import type { PolicyOptions, ProcessBrief, ProcessView, SkipReason } from './types.js';

export interface ScreenContext {
  readonly selfPid: number;
  readonly nowMs: number;
  /** pid -> time until which the agent leaves it alone (the process that has the pid now). */
  readonly cooldownUntil: { get(pid: number): number | undefined };
}

/**
 * The same ids, in any order. Lists from the kernel are sorted: compared in order first (no set
 * a call: the agent compares each process's 1,792-id list with the machine's at every pass);
 * a set only when the order differs.
 */
export function sameSet(a: readonly number[], b: readonly number[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  if (i === a.length) return true;
  const s = new Set(a);
  return b.every((x) => s.has(x));
}

function matchesAny(res: readonly RegExp[], p: Pick<ProcessBrief, 'comm' | 'cmdline'>): boolean {
  return res.some((re) => re.test(p.comm) || re.test(p.cmdline));
}

/** --exclude and --include alone: null when the name and command line let the process be placed. */
export function namedOut(
  p: Pick<ProcessBrief, 'comm' | 'cmdline'>,
  opts: Pick<PolicyOptions, 'include' | 'exclude'>,
): 'excluded' | 'not-included' | null {
  if (matchesAny(opts.exclude, p)) return 'excluded';
  if (opts.include.length > 0 && !matchesAny(opts.include, p)) return 'not-included';
  return null;
}

/** True when the CPU affinity was set by someone other than the agent. */
export function cpusPinned(p: Pick<ProcessBrief, 'cpusAllowed' | 'agentCpus' | 'cpusPermitted'>): boolean {
  if (p.cpusAllowed === null) return false;
  if (p.agentCpus !== null && sameSet(p.cpusAllowed, p.agentCpus)) return false;
  return !sameSet(p.cpusAllowed, p.cpusPermitted);
}

/**
 * The screen before its threads are read (status and cmdline only): everything but its CPU use.
 * A process it rejects costs no read of its threads' stat (hundreds on a JVM).
 */
export function prescreen(p: Omit<ProcessBrief, 'cpu'>, ctx: ScreenContext, opts: PolicyOptions): SkipReason | null {
  if (p.pid === ctx.selfPid) return 'self';
  if (p.pid === 1) return 'init';
  // Kernel threads have no mm: no VmRSS line and an empty cmdline (proc(5)).
  if (p.rssBytes === 0 && p.cmdline === '') return 'kernel-thread';
  if (p.rssBytes < opts.minRssBytes) return 'small';
  const named = namedOut(p, opts);
  if (named !== null) return named;
  if (!opts.overridePins && cpusPinned(p)) return 'pinned-cpus';
  if ((ctx.cooldownUntil.get(p.pid) ?? -Infinity) > ctx.nowMs) return 'cooldown';
  return null;
}

/** The cheap screen; null when the process is a candidate (its numa_maps is worth reading). */
export function screen(p: ProcessBrief, ctx: ScreenContext, opts: PolicyOptions): SkipReason | null {
  return prescreen(p, ctx, opts) ?? (p.cpu < opts.minCpu ? 'idle' : young(p, opts) ? 'young' : null);
}

/** Busy but younger than --min-age: judged again once it is that old (the next pass comes after a short window). */
export function young(p: Pick<ProcessBrief, 'ageSeconds'>, opts: Pick<PolicyOptions, 'minAgeMs'>): boolean {
  return p.ageSeconds !== undefined && p.ageSeconds * 1000 < opts.minAgeMs;
}

/** Policies in numa_maps that mean "placed on purpose"; default and local follow the CPU. */
function isSetPolicy(name: string): boolean {
  return !/^(default|local)\b/.test(name);
}

/**
 * After numa_maps: a memory policy someone set covers at least 1% of the memory (a library
 * mbind()ing a small buffer does not make the whole process pinned). null when none.
 */
export function memoryPin(p: ProcessView, opts: PolicyOptions): SkipReason | null {
  if (p.memory.kind !== 'ok') return 'no-permission';
  if (opts.overridePins || p.memory.totalBytes === 0) return null;
  let set = 0;
  for (const [name, bytes] of Object.entries(p.memory.policies)) if (isSetPolicy(name)) set += bytes;
  return set >= p.memory.totalBytes * 0.01 ? 'pinned-memory' : null;
}
