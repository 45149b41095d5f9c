// SysRoot -> HwlocFacts: what hwloc's Linux discovery reads beyond numakit's topology (the
// machine's info pairs, PCI functions, OS devices), for `topo --xml` (render/topo_hwloc_xml.ts);
// HwlocTreeFacts, the part the tree's shape needs, for topo's other views (render/hwloc_view.ts).
import type { HwlocFacts, HwlocTreeFacts } from '../model/hwloc_io.js';
import { readCgroupAllowed } from '../sysfs/cgroup_cpuset.js';
import { readCgroupHierarchies } from '../sysfs/cgroup_mounts.js';
import { readMemoryModules } from '../sysfs/dmi_memory.js';
import type { CoreFiles } from '../sysfs/cpu_topology.js';
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

/** The tree's facts of `online` (readHwlocOnlineCpus). */
function treeFacts(root: SysRoot, online: readonly number[], opts: Opts): HwlocTreeFacts {
  const everyFile = everyFileOf(root, opts);
  const cgroupMounts = readCgroupHierarchies(root).from !== 'default';
  return {
    pci: readPciFunctions(root),
    osDevices: readOsDevices(root),
    cpuInfo: parseCpuinfoInfos(readText(root, 'proc/cpuinfo') ?? '', readArchitecture(root)),
    cpus: readHwlocCpus(root, online, {
      shared: !everyFile,
      ...(everyFile || opts.cores === undefined ? {} : { cores: opts.cores }),
    }),
    memSideCaches: readMemSideCaches(root),
    allowedNodes: cgroupMounts ? (readCgroupAllowed(root, 'self', 'mems')?.ids ?? null) : null,
    cgroupMounts,
  };
}

/**
 * With `everyFile` (the default while a snapshot records what is read: it must hold every file
 * hwloc reads), each CPU's files are read as hwloc reads them; else what CPUs share is read once
 * (sysfs/hwloc_cpu.ts): the same facts. `cores`: what numakit's topology of this root read of each
 * core (DiscoverOptions.record), not read again.
 */
type Opts = { readonly everyFile?: boolean; readonly cores?: ReadonlyMap<number, CoreFiles> };
const everyFileOf = (root: SysRoot, opts: Opts) => opts.everyFile ?? root.onAccess !== undefined;

/** What the shape of hwloc's tree needs (topo's views): none of the export's infos, kinds or memory attributes. */
export function discoverHwlocTreeFacts(root: SysRoot, opts: Opts = {}): HwlocTreeFacts {
  return treeFacts(root, readHwlocOnlineCpus(root), opts);
}

/** Everything hwloc's export of the machine carries (topo --xml, --only; a snapshot reads it all). */
export function discoverHwlocFacts(root: SysRoot, opts: Opts = {}): HwlocFacts {
  const online = readHwlocOnlineCpus(root);
  return {
    ...treeFacts(root, online, opts),
    machineInfo: [...readDmiInfo(root), ...readCgroupInfo(root), ...readOsInfo(root)],
    cpuKinds: readCpuKindValues(root, online),
    access: readNodeAccessForHwloc(root),
    memoryModules: readMemoryModules(root),
    realRoot: root.isReal,
    numaDirs: listNodeDirs(root).length > 0,
  };
}
