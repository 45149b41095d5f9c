// SysRoot -> PlanInput: the machine facts `numakit plan` sizes from (topology, os-release, the
// memory nodes and memory limit of numakit's own cgroup), read once; nothing here decides.
// Like src/discover/doctor_input.ts for doctor.
import { hostname } from 'node:os';
import type { PlanInput } from '../model/plan_input.js';
import { readCgroupAllowed } from '../sysfs/cgroup_cpuset.js';
import { readCgroupMemoryLimit } from '../sysfs/cgroup_memory_max.js';
import { readOsRelease } from '../sysfs/os_release.js';
import type { SysRoot } from '../sysfs/root.js';
import { discoverTopology } from './topology.js';

export function readPlanInput(root: SysRoot): PlanInput {
  return {
    topology: discoverTopology(root),
    label: root.isReal ? `host ${hostname()}` : root.label,
    os: readOsRelease(root),
    cgroup: {
      mems: readCgroupAllowed(root, 'self', 'mems'),
      memoryMax: readCgroupMemoryLimit(root, 'self'),
    },
  };
}
