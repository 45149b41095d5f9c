// /sys/devices/system/cpu/{possible,online} and per CPU topology/*, online, cache/index*/.
// cpu0 usually has no "online" file (it cannot be offlined): absent means online.
// die_id and cluster_id appeared in kernels 5.2 and 5.16; absent on older ones.
import { parseCpuList } from '../model/cpuset.js';
import { parseAt, parseInteger } from './parse_util.js';
import { listDir, listNumbered, readText } from './read.js';
import type { SysRoot } from './root.js';

export const CPU_DIR = 'sys/devices/system/cpu';

export interface CpuTopologyRaw {
  readonly id: number;
  readonly online: boolean;
  readonly package: number | null;
  readonly die: number | null;
  readonly cluster: number | null;
  readonly core: number | null;
  readonly siblings: number[];
  readonly l3: number[];
}

function readInt(root: SysRoot, path: string): number | null {
  const text = readText(root, path);
  return text === null ? null : parseAt(path, text, parseInteger);
}

function readList(root: SysRoot, path: string): number[] | null {
  const text = readText(root, path);
  return text === null ? null : parseAt(path, text, parseCpuList);
}

export function readCpuList(root: SysRoot, which: 'possible' | 'online' | 'present' | 'isolated'): number[] | null {
  return readList(root, `${CPU_DIR}/${which}`);
}

/** CPU ids from the cpuN directories. */
export function listCpuDirs(root: SysRoot): number[] {
  return listNumbered(root, CPU_DIR, 'cpu');
}

/** CPUs sharing the highest-level unified/data cache (L3 on servers). */
function readLastLevelCache(root: SysRoot, cpu: number): number[] {
  const dir = `${CPU_DIR}/cpu${cpu}/cache`;
  let best: { level: number; cpus: number[] } | null = null;
  for (const idx of listDir(root, dir) ?? []) {
    if (!/^index\d+$/.test(idx)) continue;
    const level = readInt(root, `${dir}/${idx}/level`);
    const type = readText(root, `${dir}/${idx}/type`)?.trim();
    if (level === null || type === 'Instruction') continue;
    if (best === null || level > best.level) {
      best = { level, cpus: readList(root, `${dir}/${idx}/shared_cpu_list`) ?? [] };
    }
  }
  return best !== null && best.level >= 3 ? best.cpus : [];
}

export function readCpuTopology(root: SysRoot, cpu: number): CpuTopologyRaw {
  const dir = `${CPU_DIR}/cpu${cpu}`;
  const onlineFlag = readInt(root, `${dir}/online`);
  const top = `${dir}/topology`;
  // An offline CPU has no topology directory on most kernels.
  return {
    id: cpu,
    online: onlineFlag === null ? true : onlineFlag === 1,
    package: readInt(root, `${top}/physical_package_id`),
    die: readInt(root, `${top}/die_id`),
    cluster: readInt(root, `${top}/cluster_id`),
    core: readInt(root, `${top}/core_id`),
    siblings: readList(root, `${top}/thread_siblings_list`) ?? [cpu],
    l3: readLastLevelCache(root, cpu),
  };
}
