// nodeN/access1/initiators (CPU initiators only, Linux 5.10+), else access0: the figures hwloc
// turns into its memory attributes (ReadBandwidth ... and their averages Bandwidth, Latency).
// Documentation/admin-guide/mm/numaperf.rst.
import type { NodeAccess } from '../model/hwloc_io.js';
import { listNodeDirs, NODE_DIR } from './node_list.js';
import { listDir, readText } from './read.js';
import type { SysRoot } from './root.js';

const num = (t: string | null) => (t === null || !/^\s*\d+/.test(t) ? null : Number(/\d+/.exec(t)![0]));

export function readNodeAccessForHwloc(root: SysRoot): NodeAccess[] {
  const out: NodeAccess[] = [];
  for (const node of listNodeDirs(root)) {
    const base = `${NODE_DIR}/node${node}`;
    const dir = [`${base}/access1/initiators`, `${base}/access0/initiators`].find((d) => listDir(root, d) !== null);
    if (dir === undefined) continue;
    const initiators = (listDir(root, dir) ?? [])
      .map((n) => /^node(\d+)$/.exec(n)?.[1])
      .filter((n): n is string => n !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
    out.push({
      node,
      initiators,
      readBandwidth: num(readText(root, `${dir}/read_bandwidth`)),
      writeBandwidth: num(readText(root, `${dir}/write_bandwidth`)),
      readLatency: num(readText(root, `${dir}/read_latency`)),
      writeLatency: num(readText(root, `${dir}/write_latency`)),
    });
  }
  return out;
}
