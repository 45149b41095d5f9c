// The sysfs files hwloc's Linux discovery reads that numakit's own readers do not: the CPU
// masks of each topology level, each cache's shared_cpu_map and geometry, each node's cpumap.
// Read only so that `numakit snapshot` records them (src/discover/snapshot_collectors.ts): a
// snapshot then loads in hwloc's tools as the machine it came from (`lstopo --input SNAP`,
// HWLOC_FSROOT=SNAP), as the synthetic examples do. Absent files are simply not recorded.
import { CPU_DIR, listCpuDirs } from './cpu_topology.js';
import { listNodeDirs, NODE_DIR } from './node_list.js';
import { listDir, readText } from './read.js';
import type { SysRoot } from './root.js';

const TOPOLOGY = [
  'package_cpus',
  'core_siblings',
  'die_cpus',
  'cluster_cpus',
  'core_cpus',
  'thread_siblings',
  'book_siblings',
  'drawer_siblings',
];
const CACHE = [
  'shared_cpu_map',
  'size',
  'level',
  'type',
  'coherency_line_size',
  'ways_of_associativity',
  'physical_line_partition',
];

/** Reads (and so, in a snapshot, records) every file of hwloc's that exists under `root`. */
export function readHwlocFiles(root: SysRoot): void {
  for (const cpu of listCpuDirs(root)) {
    const dir = `${CPU_DIR}/cpu${cpu}`;
    for (const f of TOPOLOGY) readText(root, `${dir}/topology/${f}`);
    for (const idx of listDir(root, `${dir}/cache`) ?? [])
      if (/^index\d{1,3}$/.test(idx)) for (const f of CACHE) readText(root, `${dir}/cache/${idx}/${f}`);
  }
  for (const node of listNodeDirs(root)) readText(root, `${NODE_DIR}/node${node}/cpumap`);
}
