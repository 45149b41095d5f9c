// NUMA memory policy of the calling thread (set_mempolicy(2), get_mempolicy(2)).
// Values from include/uapi/linux/mempolicy.h.
import { fail, libc } from './libc.js';
import { fromMask, longsFor, maskBitsFor, toMask } from './mask.js';
import { possibleNodeCount } from './possible.js';
import { MODE_NAMES } from '../model/mempolicy_names.js';

export const MPOL_DEFAULT = 0;
export const MPOL_PREFERRED = 1;
export const MPOL_BIND = 2;
export const MPOL_INTERLEAVE = 3;
export const MPOL_LOCAL = 4; // Linux 3.8
export const MPOL_PREFERRED_MANY = 5; // Linux 5.15
export const MPOL_WEIGHTED_INTERLEAVE = 6; // Linux 6.9

/** Mode flags, OR-ed into the mode. */
export const MPOL_F_STATIC_NODES = 1 << 15;
export const MPOL_F_RELATIVE_NODES = 1 << 14;
export const MPOL_F_NUMA_BALANCING = 1 << 13; // Linux 5.12, MPOL_BIND only
const MODE_FLAGS = MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES | MPOL_F_NUMA_BALANCING;

/** get_mempolicy(2) flags. */
export const MPOL_F_NODE = 1 << 0;
export const MPOL_F_ADDR = 1 << 1;
export const MPOL_F_MEMS_ALLOWED = 1 << 2;

/** numactl's names for the modes (`numactl --show`). */
export { MODE_NAMES };

/** Kernel release that introduced each newer mode, for a readable EINVAL. */
const MODE_SINCE: Readonly<Record<number, string>> = {
  [MPOL_LOCAL]: '3.8',
  [MPOL_PREFERRED_MANY]: '5.15',
  [MPOL_WEIGHTED_INTERLEAVE]: '6.9',
};

export interface Mempolicy {
  mode: number;
  nodes: readonly number[];
  /** MPOL_F_STATIC_NODES, MPOL_F_RELATIVE_NODES, MPOL_F_NUMA_BALANCING. */
  modeFlags?: number;
}

export interface NodeMaskOptions {
  /** Bits in the node mask; default nr_node_ids from /sys/devices/system/node/possible. */
  nodeCount?: number;
}

/**
 * The node mask and maxnode to pass for `nodes`. The kernel's get_nodes() decrements
 * maxnode before reading the mask (mm/mempolicy.c), so like libnuma we pass nbits + 1.
 */
export function nodeMaskArgs(
  nodes: readonly number[],
  options: NodeMaskOptions = {},
): { mask: BigUint64Array; maxnode: number } {
  const nbits = maskBitsFor(nodes, options.nodeCount ?? possibleNodeCount());
  return { mask: toMask(nodes, nbits), maxnode: nbits + 1 };
}

/** Sets the calling thread's policy; it is kept across fork and exec. */
export function setMempolicy(policy: Mempolicy, options: NodeMaskOptions = {}): void {
  const { mask, maxnode } = nodeMaskArgs(policy.nodes, options);
  const empty = policy.nodes.length === 0;
  const mode = policy.mode | (policy.modeFlags ?? 0);
  if (libc().set_mempolicy(mode, empty ? null : mask, empty ? 0 : maxnode) < 0) {
    fail('set_mempolicy', { target: describePolicy(policy), hint: policyHint(policy.mode, libc().koffi.errno()) });
  }
}

/** The EINVAL hint for a mode: which kernel it needs; shared with mbind. */
export function policyHint(mode: number, errno: number): string | undefined {
  if (errno !== 22) return undefined;
  const since = MODE_SINCE[mode];
  const needs = since !== undefined ? `; ${MODE_NAMES[mode]} needs Linux ${since} or later` : '';
  return `a node may not exist, have no memory or be outside this cpuset (Mems_allowed)${needs}`;
}

export function describePolicy(policy: Mempolicy): string {
  const name = MODE_NAMES[policy.mode] ?? `mode ${policy.mode}`;
  return policy.nodes.length === 0 ? name : `${name}, nodes ${policy.nodes.join(',')}`;
}

/**
 * The calling thread's policy, or with `addr` the policy of the mapping holding it.
 * For MPOL_LOCAL and MPOL_DEFAULT `nodes` is empty.
 */
export function getMempolicy(options: NodeMaskOptions & { addr?: bigint } = {}): Mempolicy {
  const nbits = options.nodeCount ?? possibleNodeCount();
  const mask = new BigUint64Array(longsFor(nbits));
  const mode = new Int32Array(1);
  const flags = options.addr !== undefined ? MPOL_F_ADDR : 0;
  if (libc().get_mempolicy(mode, mask, nbits + 1, options.addr ?? 0n, flags) < 0) {
    fail('get_mempolicy', options.addr !== undefined ? { target: `address 0x${options.addr.toString(16)}` } : {});
  }
  const raw = mode[0]!;
  return { mode: raw & ~MODE_FLAGS, nodes: fromMask(mask, nbits), modeFlags: raw & MODE_FLAGS };
}

/**
 * The node holding the page at `addr` (MPOL_F_NODE | MPOL_F_ADDR). The kernel faults the
 * page in first if it is not present, so the answer follows the mapping's policy.
 */
export function pageNode(addr: bigint): number {
  const node = new Int32Array(1);
  if (libc().get_mempolicy(node, null, 0, addr, MPOL_F_NODE | MPOL_F_ADDR) < 0) {
    fail('get_mempolicy', { target: `node of address 0x${addr.toString(16)}` });
  }
  return node[0]!;
}

/** The node the next interleaved allocation goes to; only valid under MPOL_INTERLEAVE. */
export function nextInterleaveNode(): number {
  const node = new Int32Array(1);
  if (libc().get_mempolicy(node, null, 0, 0n, MPOL_F_NODE) < 0)
    fail('get_mempolicy', { target: 'next interleave node' });
  return node[0]!;
}

/** The nodes this thread may allocate on (its cpuset's mems). */
export function memsAllowed(options: NodeMaskOptions = {}): number[] {
  const nbits = options.nodeCount ?? possibleNodeCount();
  const mask = new BigUint64Array(longsFor(nbits));
  if (libc().get_mempolicy(null, mask, nbits + 1, 0n, MPOL_F_MEMS_ALLOWED) < 0) {
    fail('get_mempolicy', { target: 'mems allowed' });
  }
  return fromMask(mask, nbits);
}
