// SysRoot -> DoctorInput: everything doctor's rules look at, read once. Absent data becomes a
// Gathered {ok: false, reason} the rules turn into "not checked"; nothing here decides.
import type { DoctorInput, Gathered, IrqInfo, NumastatCounters, ProcessPlacement } from '../model/doctor_input.js';
import { DOCTOR_DAEMONS, gathered, missing } from '../model/doctor_input.js';
import { holdsAll } from '../model/cpuset.js';
import { largeProcessBytes, MAX_SAMPLED, SAMPLED_BYTES } from '../model/large_process.js';
import { LARGE_PROCESS_BYTES } from '../model/placement.js';
import { machineMemoryBytes, type Topology } from '../model/topology.js';
import { readRqAffinity } from '../sysfs/block_queue.js';
import { readGovernors } from '../sysfs/cpufreq.js';
import { readDefaultIrqAffinity, readInterrupts, readIrqAffinities } from '../sysfs/irq.js';
import { readIrqbalanceConfig } from '../sysfs/irqbalance_config.js';
import { readKsm } from '../sysfs/ksm.js';
import { readRpsSockFlowEntries, readRxQueues } from '../sysfs/net_rps.js';
import { readNodeNumastat } from '../sysfs/node_numastat.js';
import { readCgroupCpuset } from '../sysfs/cgroup_cpuset.js';
import { othersInvisible } from '../sysfs/proc_mount.js';
import type { SysRoot } from '../sysfs/root.js';
import { readSwapUsage } from '../sysfs/swap.js';
import { readTunedProfile } from '../sysfs/tuned.js';
import { discoverForLayout } from './topology.js';
import { type LargeProcesses, readLargeProcesses, readPlacedProcesses } from './placement.js';
import { readDemotion } from '../sysfs/numa_demotion.js';

function readIrqs(root: SysRoot, t: Topology): Gathered<Record<number, IrqInfo>> {
  const wanted = new Set(t.devices.flatMap((d) => d.irqs));
  const ints = readInterrupts(root, { irqs: wanted });
  if (ints === null)
    return missing('proc/interrupts is absent: no /proc in the tree (a snapshot without it, or a container)');
  const out: Record<number, IrqInfo> = {};
  const lines = ints.lines.filter((l) => wanted.has(l.irq));
  const affinities = readIrqAffinities(
    root,
    lines.map((l) => l.irq),
  );
  for (const line of lines) {
    const aff = affinities.get(line.irq);
    if (aff === undefined) continue;
    out[line.irq] = {
      irq: line.irq,
      affinity: aff.affinity,
      effective: aff.effective,
      counts: line.counts,
      total: line.total,
      desc: line.desc,
    };
  }
  if (wanted.size > 0 && Object.keys(out).length === 0 && readDefaultIrqAffinity(root) === null) {
    return missing('proc/irq is absent or unreadable: run as root on the machine itself');
  }
  return gathered(out, 'proc/interrupts, proc/irq/*/smp_affinity_list');
}

/** Processes by name (status's Name: the task's comm, proc(5)), read in the sampler's one pass. */
function readComms(read: LargeProcesses): Gathered<Record<string, number[]>> {
  if (read.listed === 0)
    return missing('no processes under proc/ (a snapshot taken without processes, or a container with its own /proc)');
  const out: Record<string, number[]> = {};
  for (const { pid, name } of read.names) (out[name] ??= []).push(pid);
  return gathered(out, 'proc/*/comm');
}

function readNumastat(root: SysRoot, t: Topology): Gathered<Record<number, NumastatCounters>> {
  const out: Record<number, NumastatCounters> = {};
  for (const n of t.nodes) {
    const c = readNodeNumastat(root, n.id);
    if (c === null)
      return missing(`sys/devices/system/node/node${n.id}/numastat is absent (kernel without NUMA, or a container)`);
    const v = (k: string) => c[k] ?? 0;
    out[n.id] = {
      numa_hit: v('numa_hit'),
      numa_miss: v('numa_miss'),
      numa_foreign: v('numa_foreign'),
      interleave_hit: v('interleave_hit'),
      local_node: v('local_node'),
      other_node: v('other_node'),
    };
  }
  return gathered(out, 'sys/devices/system/node/node*/numastat');
}

function readGovernorMap(root: SysRoot, t: Topology): Gathered<Record<number, string>> {
  const g = readGovernors(
    root,
    t.cpus.filter((c) => c.online).map((c) => c.id),
  );
  if (g.size === 0) return missing('no cpufreq/scaling_governor: no cpufreq driver (usual in VMs and containers)');
  return gathered(Object.fromEntries(g), 'sys/devices/system/cpu/cpu*/cpufreq/scaling_governor');
}

/**
 * The processes of a sampled size or more (model/large_process.ts; numa_maps of every process
 * would be slow), the largest MAX_SAMPLED of them, readable or not: a process whose numa_maps is
 * not readable is kept as 'no-permission', so the rules can say how many they could not check.
 */
function readPlacements(
  root: SysRoot,
  read: LargeProcesses,
  t: Topology,
): { processes: Gathered<ProcessPlacement[]>; hidden: number; over?: number } {
  if (read.listed === 0)
    return {
      processes: missing('no processes under proc/ (a snapshot taken without processes, or a container)'),
      hidden: 0,
    };
  const out: ProcessPlacement[] = [];
  const online = t.cpus
    .filter((c) => c.online)
    .map((c) => c.id)
    .sort((a, b) => a - b);
  // Whether a list holds every online CPU, once per list: the samples' lists are shared
  // (sharedCpuList), most of them one list of every CPU on a large machine.
  const everywhere = new Map<readonly number[], boolean>();
  const unrestricted = (cpus: readonly number[]) => {
    let all = everywhere.get(cpus);
    if (all === undefined) everywhere.set(cpus, (all = holdsAll(cpus, online)));
    return all;
  };
  for (const s of read.samples) {
    // A process that may run on every online CPU is restricted by nothing: its cgroup is not read.
    if (s.cpusAllowed !== null && unrestricted(s.cpusAllowed)) {
      out.push({ ...s, cpusetCgroup: null });
      continue;
    }
    const cg = readCgroupCpuset(root, s.pid);
    // The cgroup restricts the process when its cpuset is what Cpus_allowed_list shows.
    const restricts = cg !== null && s.cpusAllowed !== null && cg.cpus.join(',') === s.cpusAllowed.join(',');
    out.push({ ...s, cpusetCgroup: restricts ? cg.cgroup : null });
  }
  return {
    processes: gathered(out, 'proc/*/numa_maps, proc/*/status'),
    // A process whose stat or status was refused (hidepid=noaccess) has no known size: the pass counted it.
    hidden: read.hidden,
    ...(read.over > read.large.length ? { over: read.over } : {}),
  };
}

function nvmeDisks(t: Topology): { disk: string; controller: string }[] {
  return t.devices
    .filter((d) => d.kind === 'nvme')
    .flatMap((d) =>
      String(d.details.namespaces ?? '')
        .split(',')
        .filter((n) => n !== '')
        .map((disk) => ({ disk, controller: d.name })),
    );
}

/**
 * With `topology`, the caller's discovery of this root now (the overview's) is used, not made
 * again. Else the layout's, without each core's files: no rule looks at cores.
 */
export async function gatherDoctorInput(root: SysRoot, opts: { topology?: Topology } = {}): Promise<DoctorInput> {
  const topology = opts.topology ?? discoverForLayout(root, { cores: false });
  const nets = topology.devices.filter((d) => d.kind === 'net');
  // One pass of the process sampler: names, sizes, samples and placements all come from it.
  // What doctor places (1 GiB) is at least what it samples (256 MiB), on any machine.
  const machine = machineMemoryBytes(topology);
  const placedBytes = largeProcessBytes(LARGE_PROCESS_BYTES, machine);
  const minBytes = Math.min(largeProcessBytes(SAMPLED_BYTES, machine), placedBytes);
  const names = new Set(DOCTOR_DAEMONS);
  const read = readLargeProcesses(root, { minBytes, most: MAX_SAMPLED, names, sample: true });
  const placements = readPlacements(root, read, topology);
  return {
    topology,
    irqs: readIrqs(root, topology),
    comms: readComms(read),
    irqbalanceConfig: readIrqbalanceConfig(root),
    ksm: readKsm(root),
    swap: readSwapUsage(root),
    numastat: readNumastat(root, topology),
    governors: readGovernorMap(root, topology),
    tunedProfile: readTunedProfile(root),
    rqAffinity: nvmeDisks(topology).map((x) => ({ ...x, value: readRqAffinity(root, x.disk) })),
    rxQueues: Object.fromEntries(nets.map((d) => [d.name, readRxQueues(root, d.name)])),
    rpsSockFlowEntries: readRpsSockFlowEntries(root),
    processes: placements.processes,
    hiddenProcesses: placements.hidden,
    ...(placements.over === undefined ? {} : { processesOver: placements.over }),
    othersInvisible: othersInvisible(root),
    placed: readPlacedProcesses(root, placedBytes, read),
    demotion: readDemotion(root),
  };
}
