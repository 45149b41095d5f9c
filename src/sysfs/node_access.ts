// HMAT: nodeN/access0/initiators/{nodeX links, read_latency, write_latency, read_bandwidth,
// write_bandwidth} (Documentation/admin-guide/mm/numaperf.rst), present only when firmware
// provides an HMAT. Memory tiers: /sys/devices/virtual/memory_tiering/memory_tierN/nodelist.
import { MAX_NODES } from '../model/limits.js';
import type { NodeAccess } from '../model/topology.js';
import { NODE_DIR, parseNodeList } from './node_list.js';
import { parseCount } from './parse_util.js';
import { listDir, listNumbered } from './read.js';
import { readParsed } from './read_parsed.js';
import type { SysRoot } from './root.js';

/** A latency or bandwidth: never negative (a negative one is a warning, not a figure). */
function readOptionalInt(root: SysRoot, path: string): number | null {
  return readParsed(root, path, parseCount);
}

/** Access class 0 (best initiators of any kind) or 1 (best initiators with CPUs). */
export function readNodeAccess(root: SysRoot, node: number, accessClass: 0 | 1 = 0): NodeAccess | null {
  const dir = `${NODE_DIR}/node${node}/access${accessClass}/initiators`;
  const names = listDir(root, dir);
  if (names === null) return null;
  const initiators = names
    .flatMap((n) => (/^node(0|[1-9]\d{0,3})$/.exec(n) && Number(n.slice(4)) < MAX_NODES ? [Number(n.slice(4))] : []))
    .sort((a, b) => a - b);
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
    for (const node of readParsed(root, path, parseNodeList, { emptyIsValue: true }) ?? []) tiers.set(node, tier);
  }
  return tiers;
}
