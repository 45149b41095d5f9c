// /sys/devices/system/node/{online,possible,has_cpu,has_memory,has_normal_memory}
// and nodeN/cpulist. Node ids may be sparse (e.g. 0,2 on some EPYC and CXL systems).
import { parseCpuList } from '../model/cpuset.js';
import { listNumbered, readText } from './read.js';
import { parseAt } from './parse_util.js';
import type { SysRoot } from './root.js';

export const NODE_DIR = 'sys/devices/system/node';

export type NodeState = 'online' | 'possible' | 'has_cpu' | 'has_memory' | 'has_normal_memory';

/** The node list in NODE_DIR/<state>, or null when absent (kernel without NUMA or a container). */
export function readNodeState(root: SysRoot, state: NodeState): number[] | null {
  const path = `${NODE_DIR}/${state}`;
  const text = readText(root, path);
  return text === null ? null : parseAt(path, text, parseCpuList);
}

/** Node ids from the nodeN directories (used when node/online is absent). */
export function listNodeDirs(root: SysRoot): number[] {
  return listNumbered(root, NODE_DIR, 'node');
}

export function readNodeCpulist(root: SysRoot, node: number): number[] | null {
  const path = `${NODE_DIR}/node${node}/cpulist`;
  const text = readText(root, path);
  return text === null ? null : parseAt(path, text, parseCpuList);
}
