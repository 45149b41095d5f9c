// HMAT: nodeN/access0/initiators/{nodeX links, read_latency, write_latency, read_bandwidth,
// write_bandwidth} (Documentation/admin-guide/mm/numaperf.rst), present only when firmware
// provides an HMAT. Memory tiers: /sys/devices/virtual/memory_tiering/memory_tierN/nodelist.
import { parseCpuList } from '../model/cpuset.js';
import type { NodeAccess } from '../model/topology.js';
import { NODE_DIR } from './node_list.js';
import { parseAt, parseInteger } from './parse_util.js';
import { listDir, listNumbered, readText } from './read.js';
import type { SysRoot } from './root.js';

function readOptionalInt(root: SysRoot, path: string): number | null {
  const text = readText(root, path);
  return text === null ? null : parseAt(path, text, parseInteger);
}

export function readNodeAccess(root: SysRoot, node: number): NodeAccess | null {
  const dir = `${NODE_DIR}/node${node}/access0/initiators`;
  const names = listDir(root, dir);
  if (names === null) return null;
  const initiators = names.flatMap((n) => (/^node(\d+)$/.exec(n) ? [Number(n.slice(4))] : [])).sort((a, b) => a - b);
  return {
    initiators,
    readLatencyNs: readOptionalInt(root, `${dir}/read_latency`),
    writeLatencyNs: readOptionalInt(root, `${dir}/write_latency`),
    readBandwidthMBps: readOptionalInt(root, `${dir}/read_bandwidth`),
    writeBandwidthMBps: readOptionalInt(root, `${dir}/write_bandwidth`),
  };
}

const TIER_DIR = 'sys/devices/virtual/memory_tiering';

/** node id -> memory tier id; empty when the kernel has no memory tiering. */
export function readMemoryTiers(root: SysRoot): Map<number, number> {
  const tiers = new Map<number, number>();
  for (const tier of listNumbered(root, TIER_DIR, 'memory_tier')) {
    const path = `${TIER_DIR}/memory_tier${tier}/nodelist`;
    const text = readText(root, path);
    if (text === null) continue;
    for (const node of parseAt(path, text, parseCpuList)) tiers.set(node, tier);
  }
  return tiers;
}
