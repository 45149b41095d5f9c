// numakit run [options] [--] COMMAND ARGS...: numactl's launch. Sets the memory policy and
// CPU affinity on this thread, then execs the command in its place (same pid, signals,
// stdio and exit status). --show and --hardware print instead of running anything.
import { NumakitError, UsageError } from '../../model/errors.js';
import type { RunArgs } from '../../model/run_args.js';
import { parseRunArgs, RunArgsError } from './run_argv.js';
import { MODE_NAMES } from '../../model/mempolicy_names.js';
import { renderInterleaveWeights } from '../../render/interleave_weights.js';
import type { Context } from '../context.js';
import type { CommandModule } from '../options.js';
import { applyBinding, loadRouting, readSystem, type SystemSets } from '../../actuate/run_binding.js';

type Native = typeof import('../../native/index.js');

const POLICY = 'memory policy (one of)';
const CPU = 'CPU binding';
const OTHER = 'options';
const SHM = 'shared memory and files (no COMMAND; in this order: attach, policy, the rest)';
const OPTIONS = {
  interleave: { type: 'string', short: 'i', value: 'NODES', group: POLICY, help: 'interleave pages over NODES' },
  'weighted-interleave': {
    type: 'string',
    short: 'w',
    value: 'NODES',
    group: POLICY,
    help: 'interleave by the weights in\n/sys/kernel/mm/mempolicy/weighted_interleave (Linux 6.9+)',
  },
  preferred: { type: 'string', short: 'p', value: 'NODE', group: POLICY, help: 'prefer NODE, fall back to others' },
  'preferred-many': { type: 'string', short: 'P', value: 'NODES', group: POLICY, help: 'prefer NODES (Linux 5.15+)' },
  membind: { type: 'string', short: 'm', value: 'NODES', group: POLICY, help: 'allocate only on NODES' },
  localalloc: { type: 'boolean', short: 'l', group: POLICY, help: 'allocate on the node the thread runs on' },
  balancing: {
    type: 'boolean',
    short: 'b',
    group: POLICY,
    help: "with --membind: let the kernel's NUMA balancing move pages within NODES\n(MPOL_F_NUMA_BALANCING, Linux 5.12+; without it the bind is plain, with a note)",
  },
  cpunodebind: {
    type: 'string',
    short: 'N',
    value: 'NODES',
    group: CPU,
    help: "run on the CPUs of NODES, as numactl: the cgroup's cpuset bounds\nthem, not the current affinity (a taskset before numakit)",
  },
  cpubind: { type: 'string', short: 'c', value: 'NODES', group: CPU, help: "numactl's old spelling of --cpunodebind" },
  physcpubind: { type: 'string', short: 'C', value: 'CPUS', group: CPU, help: 'run on CPUS' },
  all: {
    type: 'boolean',
    short: 'a',
    group: OTHER,
    help: "NODES may name nodes outside Mems_allowed, CPUS CPUs outside the\ncurrent affinity (the kernel still keeps CPUs in the cgroup's cpuset)",
  },
  fallback: {
    type: 'boolean',
    group: OTHER,
    help: "where the cgroup's cpuset forbids the nodes or CPUs, step down instead of\nfailing (membind -> preferred -> CPU binding only -> none), one line on\nstderr per step saying what and why; COMMAND's exit status is its own",
  },
  show: { type: 'boolean', short: 's', group: OTHER, help: 'print the current policy and binding (numactl --show)' },
  hardware: { type: 'boolean', short: 'H', group: OTHER, help: 'print the nodes (numactl --hardware)' },
  length: {
    type: 'string',
    short: 'L',
    value: 'SIZE',
    group: SHM,
    help: 'bytes of the range (k, m, g suffixes); needed to create a segment or file',
  },
  offset: { type: 'string', short: 'o', value: 'SIZE', group: SHM, help: 'the range starts SIZE bytes in' },
  shmmode: { type: 'string', short: 'M', value: 'MODE', group: SHM, help: 'octal mode of what is created (0600)' },
  shmid: { type: 'string', short: 'I', value: 'ID', group: SHM, help: "ftok's project id for --shm (0)" },
  huge: { type: 'boolean', short: 'u', group: SHM, help: 'create the segment of huge pages (SHM_HUGETLB)' },
  shm: {
    type: 'string',
    short: 'S',
    value: 'KEYFILE',
    group: SHM,
    help: 'attach the SysV segment keyed by ftok(KEYFILE, ID), creating both if\nmissing; the policy that follows is set on it (mbind)',
  },
  file: {
    type: 'string',
    short: 'f',
    value: 'PATH',
    group: SHM,
    help: 'map PATH (tmpfs, hugetlbfs) shared, creating it if missing; the policy\nthat follows is set on its pages',
  },
  strict: {
    type: 'boolean',
    short: 't',
    group: SHM,
    help: 'later policies fail (EIO) if pages already present disagree',
  },
  touch: { type: 'boolean', short: 'T', group: SHM, help: 'fault every page in now, under the policy' },
  dump: { type: 'boolean', short: 'd', group: SHM, help: 'print the policy of each run of pages (numactl --dump)' },
  'dump-nodes': {
    type: 'boolean',
    short: 'D',
    group: SHM,
    help: 'print the node of each run of pages (faults them in; numactl --dump-nodes)',
  },
} as const;

const run: CommandModule<RunArgs> = {
  synopsis: [
    '[options] [--] COMMAND [ARGS...]',
    '--show | --hardware',
    '[-L SIZE] [-o SIZE] --shm KEYFILE | --file PATH POLICY [--touch] [--dump]',
  ],
  description: `Runs COMMAND with a NUMA memory policy and CPU binding, like numactl: the policy
and affinity are set on numakit itself, which then becomes COMMAND (same pid,
signals, stdin/stdout and exit status). Options are read like numactl's: until
"--" or the first word that is not an option; long ones may be shortened to a
unique prefix (--inter=all). Refuses --root/--example: a snapshot cannot be bound to.`,
  options: OPTIONS,
  positionals: { name: 'COMMAND [ARGS...]', max: Infinity, complete: 'command' },
  sections: [
    {
      title: 'NODES and CPUS',
      body: `all | N | N-M | lists of those (0,2-3) | !SPEC (all but) |
+SPEC (numbers count within this cpuset) | same (the previous NODES).
For NODES also: netdev:IF, block:DEV, pci:[DOMAIN:]BUS:SLOT[.FN], file:PATH,
ip:HOST (the node the device, the disk holding PATH, or the device HOST is
routed through is attached to).`,
    },
  ],
  exit: {
    0: "COMMAND's own exit status once it runs (with --show or --hardware: 0)",
    1: 'a node or CPU that does not exist or cannot be used, or a failed system call',
    126: 'COMMAND was found but could not be executed (permission, format)',
    127: 'COMMAND was not found',
  },
  parse: (args) => {
    try {
      return parseRunArgs(args);
    } catch (e) {
      if (e instanceof RunArgsError) throw new RunArgsError(`run: ${e.message}`);
      throw e;
    }
  },
  async run(opts, ctx) {
    try {
      return await runCommand(opts, ctx);
    } catch (e) {
      if (e instanceof NumakitError && !e.message.startsWith('run: '))
        throw new NumakitError(`run: ${e.message}`, e.exitCode);
      if (e instanceof Error && e.name === 'NativeError') throw new NumakitError(`run: ${e.message}`);
      throw e;
    }
  },
};
export default run;

async function runCommand(opts: RunArgs, ctx: Context): Promise<number> {
  if (opts.hardware && opts.memory === undefined && opts.cpus === undefined && !opts.show) {
    const { discoverTopology } = await import('../../discover/topology.js');
    const { renderNumactlHardware } = await import('../../render/numactl_hardware.js');
    ctx.out(renderNumactlHardware(discoverTopology(ctx.root, { devices: false, caches: false })));
    return 0;
  }
  if (!ctx.root.isReal)
    throw new NumakitError(`run: refusing to bind to ${ctx.root.label}: it is a snapshot, not this running system`);
  const specs = [
    opts.memory,
    opts.cpus,
    ...(opts.shm?.steps ?? []).map((s) => (s.kind === 'policy' ? s.memory : undefined)),
  ];
  const route = await loadRouting(specs.map((o) => (o !== undefined && 'spec' in o ? o.spec : undefined)));
  if (opts.shm !== undefined) {
    const native = await import('../../native/index.js');
    const { applyShm } = await import('../../actuate/run_shm.js');
    applyShm(native, opts.shm, {
      sys: readSystem(ctx.root),
      root: ctx.root,
      all: opts.all,
      out: ctx.out,
      note: ctx.err,
      route,
    });
    return 0;
  }
  if (!opts.show && opts.command.length === 0)
    throw new UsageError('run: no command given; usage: numakit run [options] [--] COMMAND [ARGS...]');

  const sys = readSystem(ctx.root);
  const native = await import('../../native/index.js');
  const binding = { sys, root: ctx.root, note: ctx.err, route };
  if (opts.fallback) (await import('../../actuate/run_fallback.js')).applyFallbackBinding(native, opts, binding);
  else applyBinding(native, opts, binding);
  if (opts.show) {
    const state = readShowState(native, sys);
    if (state.mode === native.MPOL_WEIGHTED_INTERLEAVE) {
      const { readInterleaveWeights } = await import('../../sysfs/weighted_interleave.js');
      const weights = readInterleaveWeights(ctx.root);
      if (weights !== null) state.weights = weights;
    }
    ctx.out(renderShow(state));
    return 0;
  }

  const [file] = opts.command;
  try {
    native.execvp(file!, opts.command); // returns only by throwing
  } catch (e) {
    if (!(e instanceof native.NativeError)) throw e;
    // 127 not found, 126 found but not executable: the shell's and env(1)'s convention.
    throw new NumakitError(
      `run: execution of '${file}': ${native.errnoMessage(e.errno)}`,
      e.code === 'ENOENT' || e.code === 'ENOTDIR' ? 127 : 126,
    );
  }
  return 127; // not reached: execvp returns only by throwing
}

/** What `numactl --show` prints, read back from the kernel. */
export interface ShowState {
  mode: number;
  /** MPOL_F_NUMA_BALANCING is set on the policy (run -b): numactl --show prints the raw mode for it. */
  balancing?: boolean;
  policyNodes: readonly number[];
  interleaveNext: number;
  affinity: readonly number[];
  runNodes: readonly number[];
  memsAllowed: readonly number[];
  /** Weighted interleave's node weights (weighted_interleave/nodeN), when the policy is that. */
  weights?: ReadonlyMap<number, number>;
}

function readShowState(native: Native, sys: SystemSets): ShowState {
  const policy = native.getMempolicy();
  let interleaveNext = 0; // libnuma's numa_get_interleave_node() answers 0 when not interleaving
  try {
    interleaveNext = native.nextInterleaveNode();
  } catch {}
  const affinity = native.getAffinity();
  const runNodes = sys.nodes.filter((n) => (sys.nodeCpus.get(n) ?? []).some((c) => affinity.includes(c)));
  return {
    mode: policy.mode,
    // MPOL_F_NUMA_BALANCING (1 << 13): kept here, not imported, so that --show loads no binding module early.
    balancing: ((policy.modeFlags ?? 0) & (1 << 13)) !== 0,
    policyNodes: policy.nodes,
    interleaveNext,
    affinity,
    runNodes,
    memsAllowed: sys.memsAllowed,
  };
}

/**
 * numactl.c show(): each mask line is "name: " and "N " per id. Where numactl prints nothing
 * after "preferred node:" (local, weighted-interleave), numakit says "current" and the
 * interleave node.
 */
export function renderShow(s: ShowState): string {
  const mask = (name: string, ids: readonly number[]) => `${name}: ${ids.map((i) => `${i} `).join('')}\n`;
  const interleaving = s.mode === 3 || s.mode === 6;
  const preferredNode =
    s.mode === 1
      ? `${s.policyNodes[0] ?? 0}`
      : s.mode === 2
        ? `${s.policyNodes[0] ?? 0}`
        : interleaving
          ? `${s.interleaveNext} (interleave next)`
          : s.mode === 5
            ? `${s.interleaveNext} (preferred-many)`
            : 'current';
  // numactl 2.0.16 prints the raw mode ("[8194]") for a bind with the balancing flag; its name says more.
  const flags = s.balancing === true ? ' balancing' : '';
  let out = `policy: ${MODE_NAMES[s.mode] ?? `[${s.mode}]`}${flags}\npreferred node: ${preferredNode}\n`;
  if (interleaving) {
    out += mask('interleavemask', s.policyNodes);
    if (s.mode === 6 && s.weights !== undefined)
      out += renderInterleaveWeights(s.policyNodes, (n) => s.weights?.get(n));
    out += `interleavenode: ${s.interleaveNext}\n`;
  }
  out += mask('physcpubind', s.affinity);
  out += mask('cpubind', s.runNodes);
  out += mask('nodebind', s.runNodes);
  out += mask('membind', s.mode === 2 ? s.policyNodes : s.memsAllowed);
  out += mask('preferred', s.policyNodes); // libnuma's numa_preferred_many(): the policy's nodes, whatever the mode
  return out;
}
