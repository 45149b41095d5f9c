// `run --fallback`: the binding of run_binding.ts, stepped down where the cpuset forbids it
// (policy/run_fallback.ts decides the rungs and words the lines). The cpuset is judged first from
// Mems_allowed and the cgroup's cpuset; a rung the kernel still refuses is one more step down.
import { formatCpuList } from '../model/cpuset.js';
import { NumakitError } from '../model/errors.js';
import type { CpuOption, MemoryOption, RunArgs } from '../model/run_args.js';
import { parseCpuSpec, parseNodeSpec, SpecError } from '../policy/nodespec.js';
import {
  type AllowedSets,
  cpuFallback,
  describeRung,
  firstFittingRung,
  type MemoryRung,
  memoryLadder,
  stepLine,
} from '../policy/run_fallback.js';
import { readCgroupAllowed } from '../sysfs/cgroup_cpuset.js';
import {
  applyMemory,
  type BindingContext,
  cpuContext,
  MODES,
  memoryPolicy,
  nodeContext,
  setAffinity,
} from './run_binding.js';

type Native = typeof import('../native/index.js');

/** The cpuset's memory nodes and CPUs, and where each was read, for the lines. */
export function readAllowedSets(b: BindingContext): AllowedSets {
  const mems = readCgroupAllowed(b.root, 'self', 'mems');
  const cpus = readCgroupAllowed(b.root, 'self', 'cpus');
  return {
    mems: b.sys.memsAllowed,
    memsFrom: mems === null ? 'Mems_allowed' : `cgroup ${mems.cgroup}'s cpuset`,
    ...(mems === null ? {} : { memsFile: `/${mems.path}` }),
    cpus: cpus?.ids ?? b.sys.cpusAllowed,
    cpusFrom: cpus === null ? 'Cpus_allowed' : `cgroup ${cpus.cgroup}'s cpuset`,
    ...(cpus === null ? {} : { cpusFile: `/${cpus.path}` }),
  };
}

/** The nodes of a spec: within the cpuset as numactl reads it, else (what --fallback steps down from) any node. */
function requestedNodes(
  native: Native,
  memory: Exclude<MemoryOption, { kind: 'localalloc' }>,
  b: BindingContext,
  all: boolean,
) {
  const o = { sys: b.sys, root: b.root, ...(b.route === undefined ? {} : { route: b.route }) };
  try {
    return memoryPolicy(native, memory, { ...o, all }).nodes;
  } catch (e) {
    if (!(e instanceof SpecError) || all) throw e;
    return memoryPolicy(native, memory, { ...o, all: true }).nodes;
  }
}

interface RungContext {
  readonly memory: MemoryOption;
  readonly all: boolean;
  readonly balancing: boolean;
}

/** Sets one rung: the request itself as run would (its --balancing, its errors), a softer one plainly. */
function setRung(native: Native, rung: MemoryRung, first: boolean, r: RungContext, b: BindingContext): void {
  if (rung.kind === 'none') return;
  if (first) {
    const { all, balancing } = r;
    applyMemory(native, r.memory, { sys: b.sys, all, root: b.root, balancing, note: b.note, route: b.route });
    return;
  }
  native.setMempolicy({ mode: MODES[rung.kind], nodes: [...rung.nodes] });
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message.replace(/^run: /, '') : String(e);
}

/** The memory policy, stepped down rung by rung; returns the rung set. */
function fallbackMemory(
  native: Native,
  opts: Pick<RunArgs, 'memory' | 'cpus' | 'all' | 'balancing'>,
  b: BindingContext,
  a: AllowedSets,
): MemoryRung | undefined {
  const memory = opts.memory;
  if (memory === undefined) return undefined;
  if (memory.kind === 'localalloc') {
    applyMemory(native, memory, { sys: b.sys, all: opts.all, root: b.root, balancing: false, note: b.note });
    return undefined;
  }
  const ladder = memoryLadder(memory.kind, requestedNodes(native, memory, b, opts.all), a.mems);
  const cpuBinding = opts.cpus !== undefined;
  const skip = firstFittingRung(ladder, a, cpuBinding);
  for (const line of skip.lines) b.note(line);
  for (let i = skip.index; i < ladder.length; i++) {
    const rung = ladder[i]!;
    try {
      setRung(native, rung, i === 0, { memory, all: opts.all, balancing: opts.balancing }, b);
      return rung;
    } catch (e) {
      if (!(e instanceof native.NativeError) && !(e instanceof NumakitError)) throw e;
      const next = ladder[i + 1]!;
      b.note(
        stepLine(
          describeRung(rung, cpuBinding),
          describeRung(next, cpuBinding),
          `the kernel refused it (${errorText(e)})`,
        ),
      );
    }
  }
  return ladder[ladder.length - 1];
}

/** The CPUs a CPU option names, any the machine has (the cpuset's bound is --fallback's to apply). */
function requestedCpus(cpus: CpuOption, b: BindingContext): number[] {
  if (cpus.kind === 'physcpubind') return parseCpuSpec(cpus.spec, cpuContext(b.sys, true));
  const nodes = parseNodeSpec(cpus.spec, nodeContext(b.sys, true, b.root, b.route));
  return nodes.flatMap((n) => {
    const own = b.sys.nodeCpus.get(n) ?? [];
    if (own.length === 0)
      throw new SpecError(`node ${n} has no CPUs (a memory-only node); --cpunodebind needs nodes with CPUs`);
    return own;
  });
}

function fallbackCpus(native: Native, cpus: CpuOption | undefined, b: BindingContext, a: AllowedSets): void {
  if (cpus === undefined) return;
  const what = `--${cpus.kind} ${cpus.spec}`;
  const step = cpuFallback(what, requestedCpus(cpus, b), a);
  for (const line of step.lines) b.note(line);
  if (step.cpus === null) return;
  try {
    setAffinity(native, step.cpus, b.root);
  } catch (e) {
    if (!(e instanceof native.NativeError) && !(e instanceof SpecError)) throw e;
    b.note(
      stepLine(
        `--physcpubind ${formatCpuList(step.cpus)}`,
        'no CPU binding',
        `the kernel refused it (${errorText(e)})`,
      ),
    );
  }
}

/**
 * Sets `opts`' binding as applyBinding does, but where the cpuset forbids it steps down
 * (membind -> preferred -> CPU binding only -> none), one line to `b.note` per step.
 */
export function applyFallbackBinding(
  native: Native,
  opts: Pick<RunArgs, 'memory' | 'cpus' | 'all' | 'balancing'>,
  b: BindingContext,
): void {
  const a = readAllowedSets(b);
  fallbackMemory(native, opts, b, a);
  fallbackCpus(native, opts.cpus, b, a);
}
