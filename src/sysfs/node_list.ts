// /sys/devices/system/node/{online,possible,has_cpu,has_memory,has_normal_memory}
// and nodeN/cpulist. Node ids may be sparse (e.g. 0,2 on some EPYC and CXL systems).
// An empty list file is an empty list (has_cpu on a machine of memory-only nodes, the cpulist
// of a CXL node); one that cannot be parsed is absent with a warning.
import { parseCpuList } from '../model/cpuset.js';
import { MAX_NODES } from '../model/limits.js';
import { listNumbered } from './read.js';
import { readParsed } from './read_parsed.js';
import type { SysRoot } from './root.js';

export const NODE_DIR = 'sys/devices/system/node';

export type NodeState = 'online' | 'possible' | 'has_cpu' | 'has_memory' | 'has_normal_memory';

/** A node list: ids below MAX_NODES. */
export function parseNodeList(text: string): number[] {
  return parseCpuList(text, MAX_NODES);
}

/** The node list in NODE_DIR/<state>, or null when absent (kernel without NUMA or a container). */
export function readNodeState(root: SysRoot, state: NodeState): number[] | null {
  return readParsed(root, `${NODE_DIR}/${state}`, parseNodeList, { emptyIsValue: true });
}

/** Node ids from the nodeN directories (used when node/online is absent). */
export function listNodeDirs(root: SysRoot): number[] {
  return listNumbered(root, NODE_DIR, 'node', MAX_NODES);
}

export function readNodeCpulist(root: SysRoot, node: number): number[] | null {
  return readParsed(root, `${NODE_DIR}/node${node}/cpulist`, parseCpuList, { emptyIsValue: true });
}
