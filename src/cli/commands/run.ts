// numakit run [options] [--] COMMAND ARGS...: numactl's launch. Sets the memory policy and
// CPU affinity on this thread, then execs the command in its place (same pid, signals,
// stdio and exit status). --show and --hardware print instead of running anything.
import { statSync } from 'node:fs';
import { posix } from 'node:path';
import { formatCpuList, parseCpuList } from '../../model/cpuset.js';
import { NumakitError, UsageError } from '../../model/errors.js';
import { parseRunArgs, REFUSED_SHM_OPTIONS, RunArgsError, type MemoryOption, type RunArgs } from '../../policy/nodespec_argv.js';
import { SpecError, parseCpuSpec, parseNodeSpec, pciNumaNodePath, type DeviceKind, type SpecContext } from '../../policy/nodespec.js';
import { listDir, readText, resolvePath } from '../../sysfs/read.js';
import { listNodeDirs, readNodeCpulist, readNodeState } from '../../sysfs/node_list.js';
import { readProcStatus } from '../../sysfs/proc_status.js';
import type { SysRoot } from '../../sysfs/root.js';
import type { Context } from '../context.js';
import type { Command } from '../options.js';

type Native = typeof import('../../native/index.js');

const POLICY = 'memory policy (one of)';
const CPU = 'CPU binding';
const OTHER = 'options';
const REFUSED = "numactl options numakit run refuses (shared memory and file policies are not implemented)";
const OPTIONS = {
  interleave: { type: 'string', short: 'i', value: 'NODES', group: POLICY, help: 'interleave pages over NODES' },
  'weighted-interleave': { type: 'string', short: 'w', value: 'NODES', group: POLICY, help: 'interleave by the weights in\n/sys/kernel/mm/mempolicy/weighted_interleave (Linux 6.9+)' },
  preferred: { type: 'string', short: 'p', value: 'NODE', group: POLICY, help: 'prefer NODE, fall back to others' },
  'preferred-many': { type: 'string', short: 'P', value: 'NODES', group: POLICY, help: 'prefer NODES (Linux 5.15+)' },
  membind: { type: 'string', short: 'm', value: 'NODES', group: POLICY, help: 'allocate only on NODES' },
  localalloc: { type: 'boolean', short: 'l', group: POLICY, help: 'allocate on the node the thread runs on' },
  balancing: { type: 'boolean', short: 'b', group: POLICY, help: 'with --membind: let the kernel\'s NUMA balancing move pages within NODES\n(MPOL_F_NUMA_BALANCING, Linux 5.12+; without it the bind is plain, with a note)' },
  cpunodebind: { type: 'string', short: 'N', value: 'NODES', group: CPU, help: 'run on the CPUs of NODES' },
  cpubind: { type: 'string', short: 'c', value: 'NODES', group: CPU, help: "numactl's old spelling of --cpunodebind" },
  physcpubind: { type: 'string', short: 'C', value: 'CPUS', group: CPU, help: 'run on CPUS' },
  all: { type: 'boolean', short: 'a', group: OTHER, help: "NODES/CPUS may name any node or CPU, not only this cpuset's" },
  show: { type: 'boolean', short: 's', group: OTHER, help: 'print the current policy and binding (numactl --show)' },
  hardware: { type: 'boolean', short: 'H', group: OTHER, help: 'print the nodes (numactl --hardware)' },
  ...Object.fromEntries(REFUSED_SHM_OPTIONS.map((o) => [o.long, { type: o.arg ? 'string' : 'boolean', short: o.short, group: REFUSED, help: 'refused: exit 2 naming the gap; use numactl', ...(o.arg ? { value: 'ARG' } : {}) } as const])),
} as const;

const run: Command<RunArgs> = {
  summary: 'run a command with a NUMA policy and CPU binding (numactl-compatible)',
  synopsis: ['[options] [--] COMMAND [ARGS...]', '--show | --hardware'],
  description: `Runs COMMAND with a NUMA memory policy and CPU binding, like numactl: the policy
and affinity are set on numakit itself, which then becomes COMMAND (same pid,
signals, stdin/stdout and exit status). Options are read like numactl's: until
"--" or the first word that is not an option; long ones may be shortened to a
unique prefix (--inter=all). Refuses --root/--example: a snapshot cannot be bound to.`,
  options: OPTIONS,
  positionals: { name: 'COMMAND [ARGS...]', max: Infinity, complete: 'command' },
  sections: [{
    title: 'NODES and CPUS',
    body: `all | N | N-M | lists of those (0,2-3) | !SPEC (all but) |
+SPEC (numbers count within this cpuset) | same (the previous NODES).
For NODES also: netdev:IF, block:DEV, pci:[DOMAIN:]BUS:SLOT[.FN], file:PATH
(the node the device, or the disk holding PATH, is attached to).`,
  }],
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
      if (e instanceof NumakitError && !e.message.startsWith('run: ')) throw new NumakitError(`run: ${e.message}`, e.exitCode);
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
    ctx.out(renderNumactlHardware(discoverTopology(ctx.root, { devices: false })));
    return 0;
  }
  if (!ctx.root.isReal) throw new NumakitError(`run: refusing to bind to ${ctx.root.label}: it is a snapshot, not this running system`);
  if (!opts.show && opts.command.length === 0) throw new UsageError('run: no command given; usage: numakit run [options] [--] COMMAND [ARGS...]');

  const sys = readSystem(ctx.root);
  const native = await import('../../native/index.js');
  if (opts.memory !== undefined) applyMemory(native, opts.memory, { sys, all: opts.all, root: ctx.root, balancing: opts.balancing, note: ctx.err });
  if (opts.cpus !== undefined) {
    const cpus = opts.cpus.kind === 'physcpubind' ? parseCpuSpec(opts.cpus.spec, cpuContext(sys, opts.all)) : cpusOfNodes(opts.cpus.spec, sys, opts.all, ctx.root);
    native.setAffinity(0, cpus);
  }
  if (opts.show) {
    ctx.out(renderShow(readShowState(native, sys)));
    return 0;
  }

  const [file] = opts.command;
  try {
    native.execvp(file!, opts.command); // returns only by throwing
  } catch (e) {
    if (!(e instanceof native.NativeError)) throw e;
    // 127 not found, 126 found but not executable: the shell's and env(1)'s convention.
    throw new NumakitError(`run: execution of '${file}': ${native.errnoMessage(e.errno)}`, e.code === 'ENOENT' || e.code === 'ENOTDIR' ? 127 : 126);
  }
  return 127; // not reached: execvp returns only by throwing
}

/** What run needs to know about this machine and this process, read once. */
export interface SystemSets {
  nodes: number[];
  memoryNodes: number[];
  cpus: number[];
  memsAllowed: number[];
  cpusAllowed: number[];
  nodeCpus: Map<number, number[]>;
}

function readSystem(root: SysRoot): SystemSets {
  const nodes = readNodeState(root, 'online') ?? (listNodeDirs(root).length > 0 ? listNodeDirs(root) : [0]);
  const cpuText = readText(root, 'sys/devices/system/cpu/present') ?? readText(root, 'sys/devices/system/cpu/possible') ?? '0';
  const cpus = parseCpuList(cpuText);
  const status = readProcStatus(root, process.pid);
  const nodeCpus = new Map(nodes.map((n) => [n, readNodeCpulist(root, n) ?? []] as const));
  return {
    nodes,
    memoryNodes: readNodeState(root, 'has_memory') ?? nodes,
    cpus,
    memsAllowed: status?.memsAllowed ?? nodes,
    cpusAllowed: status?.cpusAllowed ?? cpus,
    nodeCpus,
  };
}

function nodeContext(sys: SystemSets, all: boolean, root: SysRoot): SpecContext {
  return { allowed: all ? sys.nodes : sys.memsAllowed, universe: sys.nodes, resolveDevice: (kind, id) => deviceNode(root, kind, id) };
}

function cpuContext(sys: SystemSets, all: boolean): SpecContext {
  return { allowed: all ? sys.cpus : sys.cpusAllowed, universe: sys.cpus };
}

const MODES = { interleave: 3, 'weighted-interleave': 6, membind: 2, preferred: 1, 'preferred-many': 5 } as const;
const SINCE: Partial<Record<MemoryOption['kind'], string>> = { 'weighted-interleave': '6.9', 'preferred-many': '5.15' };

interface MemoryContext { sys: SystemSets; all: boolean; root: SysRoot; balancing: boolean; note: (line: string) => void }

function applyMemory(native: Native, memory: MemoryOption, o: MemoryContext): void {
  const { sys, all, root } = o;
  if (memory.kind === 'localalloc') {
    native.setMempolicy({ mode: native.MPOL_LOCAL, nodes: [] });
    return;
  }
  const nodes = parseNodeSpec(memory.spec, nodeContext(sys, all, root));
  for (const n of nodes) {
    if (!sys.nodes.includes(n)) throw new SpecError(`node ${n} does not exist (nodes: ${formatCpuList(sys.nodes)})`);
    if (!sys.memoryNodes.includes(n)) throw new SpecError(`node ${n} has no memory (nodes with memory: ${formatCpuList(sys.memoryNodes)})`);
  }
  if (memory.kind === 'preferred' && nodes.length !== 1) {
    throw new SpecError(`--preferred takes one node, not ${formatCpuList(nodes)}; use --preferred-many for several`);
  }
  if (o.balancing) {
    try {
      native.setMempolicy({ mode: MODES[memory.kind], nodes, modeFlags: native.MPOL_F_NUMA_BALANCING });
      return;
    } catch (e) {
      if (!(e instanceof native.NativeError && e.code === 'EINVAL')) throw e;
      // libnuma's numa_set_membind_balancing() falls back the same way, silently.
      o.note('numakit: run: --balancing: this kernel rejects MPOL_F_NUMA_BALANCING (Linux 5.12+); binding without it\n');
    }
  }
  try {
    native.setMempolicy({ mode: MODES[memory.kind], nodes });
  } catch (e) {
    const since = SINCE[memory.kind];
    if (e instanceof native.NativeError && e.code === 'EINVAL' && since !== undefined) {
      throw new NumakitError(`--${memory.kind} needs Linux ${since} or later; this kernel rejected it (set_mempolicy: Invalid argument)`);
    }
    throw e;
  }
}

function cpusOfNodes(spec: string, sys: SystemSets, all: boolean, root: SysRoot): number[] {
  const cpus: number[] = [];
  for (const n of parseNodeSpec(spec, nodeContext(sys, all, root))) {
    const own = sys.nodeCpus.get(n) ?? [];
    if (own.length === 0) throw new SpecError(`node ${n} has no CPUs (a memory-only node); --cpunodebind needs nodes with CPUs`);
    cpus.push(...own);
  }
  return cpus;
}

/** The node a device sits on, the way numactl's affinity.c finds it. */
function deviceNode(root: SysRoot, kind: DeviceKind, id: string): number {
  const name = `${kind}:${id}`;
  switch (kind) {
    case 'pci':
      return readDeviceNode(root, pciNumaNodePath(id), name);
    case 'netdev':
    case 'block': {
      if (id.includes('/') || id === '.' || id === '..') throw new SpecError(`${name}: not a device name`);
      const cls = kind === 'netdev' ? 'net' : 'block';
      if (readText(root, `sys/class/${cls}/${id}/uevent`) === null) throw new SpecError(`${name}: no such device in /sys/class/${cls}`);
      return nearestNode(root, resolvePath(root, `sys/class/${cls}/${id}`), name);
    }
    case 'file':
      return deviceNode(root, 'block', blockDeviceOf(root, id));
    case 'ip':
      throw new SpecError(`${name}: ip: is not supported; give the interface with netdev:IF`);
  }
}

/** Walks up from a device directory to the nearest ancestor with a numa_node (partitions, namespaces). */
function nearestNode(root: SysRoot, dir: string, name: string): number {
  for (let d = dir; d.startsWith('sys/devices/'); d = posix.dirname(d)) {
    if (readText(root, `${d}/numa_node`) !== null) return readDeviceNode(root, `${d}/numa_node`, name);
  }
  throw new SpecError(`${name} is not attached to any NUMA node (a virtual device?)`);
}

function readDeviceNode(root: SysRoot, path: string, name: string): number {
  const text = readText(root, path);
  if (text === null) throw new SpecError(`${name}: no such device (/${path} is missing)`);
  const node = Number(text.trim());
  if (!Number.isInteger(node)) throw new SpecError(`${name}: /${path} holds '${text.trim()}', not a node`);
  if (node < 0) throw new SpecError(`${name}: the kernel does not know its node (/${path} is ${node})`);
  return node;
}

/** The block device holding PATH (or PATH itself if it is one), found by its major:minor. */
function blockDeviceOf(root: SysRoot, path: string): string {
  let st;
  try {
    st = statSync(path, { bigint: true });
  } catch {
    throw new SpecError(`file:${path}: cannot stat it`);
  }
  const dev = st.isBlockDevice() ? st.rdev : st.dev;
  // glibc's gnu_dev_major/minor: dev_t keeps the low 8 minor bits, then 12 major bits, then the rest.
  const major = Number(((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn));
  const minor = Number((dev & 0xffn) | ((dev >> 12n) & ~0xffn));
  for (const name of listDir(root, 'sys/class/block') ?? []) {
    if (readText(root, `sys/class/block/${name}/dev`)?.trim() === `${major}:${minor}`) return name;
  }
  throw new SpecError(`file:${path}: its filesystem (device ${major}:${minor}) is on no block device`);
}

/** What `numactl --show` prints, read back from the kernel. */
export interface ShowState {
  mode: number;
  policyNodes: readonly number[];
  interleaveNext: number;
  affinity: readonly number[];
  runNodes: readonly number[];
  memsAllowed: readonly number[];
}

function readShowState(native: Native, sys: SystemSets): ShowState {
  const policy = native.getMempolicy();
  let interleaveNext = 0; // libnuma's numa_get_interleave_node() answers 0 when not interleaving
  try {
    interleaveNext = native.nextInterleaveNode();
  } catch {}
  const affinity = native.getAffinity();
  const runNodes = sys.nodes.filter((n) => (sys.nodeCpus.get(n) ?? []).some((c) => affinity.includes(c)));
  return { mode: policy.mode, policyNodes: policy.nodes, interleaveNext, affinity, runNodes, memsAllowed: sys.memsAllowed };
}

const NAMES: Record<number, string> = { 0: 'default', 1: 'preferred', 2: 'bind', 3: 'interleave', 4: 'local', 5: 'preferred-many', 6: 'weighted-interleave' };

/**
 * numactl.c show(): each mask line is "name: " and "N " per id. Where numactl prints nothing
 * after "preferred node:" (local, weighted-interleave), numakit says "current" and the
 * interleave node.
 */
export function renderShow(s: ShowState): string {
  const mask = (name: string, ids: readonly number[]) => `${name}: ${ids.map((i) => `${i} `).join('')}\n`;
  const interleaving = s.mode === 3 || s.mode === 6;
  const preferredNode =
    s.mode === 1 ? `${s.policyNodes[0] ?? 0}`
    : s.mode === 2 ? `${s.policyNodes[0] ?? 0}`
    : interleaving ? `${s.interleaveNext} (interleave next)`
    : s.mode === 5 ? `${s.interleaveNext} (preferred-many)`
    : 'current';
  let out = `policy: ${NAMES[s.mode] ?? `[${s.mode}]`}\npreferred node: ${preferredNode}\n`;
  if (interleaving) out += mask('interleavemask', s.policyNodes) + `interleavenode: ${s.interleaveNext}\n`;
  out += mask('physcpubind', s.affinity);
  out += mask('cpubind', s.runNodes);
  out += mask('nodebind', s.runNodes);
  out += mask('membind', s.mode === 2 ? s.policyNodes : s.memsAllowed);
  out += mask('preferred', s.policyNodes); // libnuma's numa_preferred_many(): the policy's nodes, whatever the mode
  return out;
}
