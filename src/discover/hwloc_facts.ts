// SysRoot -> HwlocFacts: what hwloc's Linux discovery reads beyond numakit's topology (the
// machine's info pairs, PCI functions, OS devices), for `topo --xml` (render/topo_hwloc_xml.ts).
import type { HwlocFacts } from '../model/hwloc_io.js';
import { readCgroupAllowed } from '../sysfs/cgroup_cpuset.js';
import { readCgroupHierarchies } from '../sysfs/cgroup_mounts.js';
import { readMemoryModules } from '../sysfs/dmi_memory.js';
import { readCpuKindValues, readHwlocCpus, readHwlocOnlineCpus } from '../sysfs/hwloc_cpu.js';
import {
  parseCpuinfoInfos,
  readArchitecture,
  readCgroupInfo,
  readDmiInfo,
  readOsInfo,
} from '../sysfs/hwloc_machine_info.js';
import { readNodeAccessForHwloc } from '../sysfs/node_access_hwloc.js';
import { listNodeDirs } from '../sysfs/node_list.js';
import { readMemSideCaches } from '../sysfs/node_memside_cache.js';
import { readText } from '../sysfs/read.js';
import { readOsDevices } from '../sysfs/os_devices.js';
import { readPciFunctions } from '../sysfs/pci_functions.js';
import type { SysRoot } from '../sysfs/root.js';

/** The online CPUs' masks and kinds, the online CPUs found once for both. */
function cpuFacts(root: SysRoot, everyFile: boolean): Pick<HwlocFacts, 'cpus' | 'cpuKinds'> {
  const online = readHwlocOnlineCpus(root);
  return {
    cpus: readHwlocCpus(root, online, { shared: !everyFile }),
    cpuKinds: readCpuKindValues(root, online),
  };
}

/**
 * With `everyFile` (the default while a snapshot records what is read: it must hold every file
 * hwloc reads), each CPU's files are read as hwloc reads them; else what CPUs share is read once
 * (sysfs/hwloc_cpu.ts): the same facts.
 */
export function discoverHwlocFacts(root: SysRoot, opts: { everyFile?: boolean } = {}): HwlocFacts {
  const cgroupMounts = readCgroupHierarchies(root).from !== 'default';
  return {
    machineInfo: [...readDmiInfo(root), ...readCgroupInfo(root), ...readOsInfo(root)],
    pci: readPciFunctions(root),
    osDevices: readOsDevices(root),
    cpuInfo: parseCpuinfoInfos(readText(root, 'proc/cpuinfo') ?? '', readArchitecture(root)),
    ...cpuFacts(root, opts.everyFile ?? root.onAccess !== undefined),
    memSideCaches: readMemSideCaches(root),
    access: readNodeAccessForHwloc(root),
    memoryModules: readMemoryModules(root),
    allowedNodes: cgroupMounts ? (readCgroupAllowed(root, 'self', 'mems')?.ids ?? null) : null,
    realRoot: root.isReal,
    cgroupMounts,
    numaDirs: listNodeDirs(root).length > 0,
  };
}
