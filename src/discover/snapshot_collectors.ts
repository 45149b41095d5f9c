// What `numakit snapshot` reads. A snapshot records every path the collectors read through
// src/sysfs/read.ts and copies exactly those, so a command that reads a new kernel file only
// has to register (or extend) a collector here for its file to travel with snapshots.
import type { SysRoot } from '../sysfs/root.js';
import { discoverTopology } from './topology.js';

export interface CollectOptions {
  /** Include per-process data (/proc/PID/...). Off by default: it names what runs on the host. */
  readonly processes: boolean;
}

export interface Collector {
  readonly name: string;
  readonly collect: (root: SysRoot, opts: CollectOptions) => void | Promise<void>;
}

export const SNAPSHOT_COLLECTORS: Collector[] = [
  { name: 'topology', collect: (root) => void discoverTopology(root) },
  // numakit fleet report tells hosts apart by it.
  { name: 'host name', collect: async (root) => void (await import('../sysfs/hostname.js')).readHostname(root) },
  {
    name: 'node statistics (stat)',
    collect: async (root) => void (await import('./node_stat.js')).readNodeStat(root, { meminfo: true }),
  },
  {
    // Without --processes the /proc/PID paths it reads are dropped by the writer, and the
    // process-based doctor rules say "not checked" on the snapshot.
    name: 'doctor inputs',
    collect: async (root) => void (await (await import('./doctor_input.js')).gatherDoctorInput(root)),
  },
  {
    // What the process taking the snapshot is allowed: topo marks the CPUs its cgroup allows,
    // plan sizes from them and its memory nodes and checks its memory limit. Carried with or
    // without --processes (as proc/self/, never as a process: cli/commands/snapshot.ts).
    name: "this process's limits (topo, plan)",
    collect: async (root) => {
      const { readCgroupAllowed } = await import('../sysfs/cgroup_cpuset.js');
      readCgroupAllowed(root, 'self', 'cpus');
      readCgroupAllowed(root, 'self', 'mems');
      (await import('../sysfs/cgroup_memory_max.js')).readCgroupMemoryLimit(root, 'self');
      (await import('../sysfs/proc_status.js')).readProcStatus(root, 'self');
    },
  },
  {
    // lstopo --input SNAP and HWLOC_FSROOT=SNAP load a snapshot as the machine it came from.
    name: "hwloc's topology files",
    collect: async (root) => {
      (await import('../sysfs/hwloc_files.js')).readHwlocFiles(root);
      (await import('./hwloc_facts.js')).discoverHwlocFacts(root);
    },
  },
  {
    // plan writes units and config paths for the packages of this distribution
    name: 'distribution (plan)',
    collect: async (root) => void (await import('../sysfs/os_release.js')).readOsRelease(root),
  },
  {
    name: 'processes (stat -p, --procs, top and its drill-down)',
    collect: async (root, opts) => {
      if (!opts.processes) return;
      const { createSampler } = await import('./process_sampler.js');
      const { readCmdline } = await import('../sysfs/proc_list.js');
      const { readDetailFiles } = await import('./top_detail.js');
      const sampler = createSampler(root);
      // top's drill-down (Enter on a process) reads these too
      for (const p of sampler.sample(0)) readDetailFiles(root, p.pid);
      sampler.close();
      // stat -p PATTERN matches command lines (redacted in the copy unless --no-redact)
      for (const pid of sampler.listed) readCmdline(root, pid);
    },
  },
];
