// The qemu-system-x86_64 command line for a resolved topology. Pure; see LAB.md for why each
// choice (PVH boot of a plain vmlinux, q35, 9p root, -no-reboot) is made.
import type { ResolvedNode, ResolvedTopology } from './topology.js';

export type Accel = 'kvm' | 'tcg';

export interface QemuInputs {
  readonly kernel: string;
  readonly initrd: string;
  /** Host directory shared read-write into the guest (command script in, results out). */
  readonly shareDir: string;
  readonly consoleFile: string;
  readonly accel: Accel;
  /**
   * A NIC on QEMU user networking whose only way in is this host port on 127.0.0.1, forwarded
   * to the guest's port 22; restrict=on: the guest reaches nothing outside (no route out).
   */
  readonly sshPort?: number;
}

/**
 * panic=-1 + -no-reboot: a kernel panic ends qemu at once instead of hanging until the timeout.
 * No `tsc=reliable`: under TCG the guest's TSC is the host's own TSC as QEMU reads it (QEMU adds
 * any step back to it, so it never goes back), calibrated by the guest at boot, and on a host
 * whose TSC is not to be trusted (a nested VM: the development host's own kernel runs with
 * tsc=unstable on kvm-clock) or one starved enough it can run away. `tsc=reliable` turns off the
 * clocksource watchdog, which compares the TSC with the HPET (QEMU derives it from the host's
 * monotonic clock) every half second and, when they part, marks the TSC unstable and moves the
 * guest's clock to the HPET. Not the HPET from the start: every HPET read is an emulated device
 * access (under TCG, behind QEMU's global lock), where a TSC read through the vDSO costs little.
 * no_timer_check: at boot the kernel busy-waits a few TSC-timed ticks for the timer interrupt and
 * panics ("IO-APIC + timer doesn't work!") when too few came; a vCPU starved by a loaded host
 * receives them late, so the check fails a guest whose timer works.
 */
export const KERNEL_CMDLINE = 'console=ttyS0 quiet loglevel=3 panic=-1 mitigations=off no_timer_check';

/** -smp, and the -numa cpu lines (which must follow the -numa node lines). */
function smpArgs(t: ResolvedTopology): { smp: string[]; cpuMap: string[] } {
  const cpuNodes = t.nodes.filter((n) => n.cpus.length > 0);
  const first = cpuNodes[0]?.cpus.length ?? 1;
  // One socket per CPU-bearing node when they are all the same size; else one socket per CPU,
  // since -smp needs the same number of cores in every socket.
  const uniform = cpuNodes.every((n) => n.cpus.length === first);
  const cores = uniform ? first : 1;
  const sockets = t.totalCpus / cores;
  const smp = ['-smp', `${t.totalCpus},sockets=${sockets},cores=${cores},threads=1,maxcpus=${t.totalCpus}`];
  const cpuMap: string[] = [];
  let socket = 0;
  for (const n of cpuNodes) {
    const count = uniform ? 1 : n.cpus.length;
    for (let i = 0; i < count; i++) cpuMap.push('-numa', `cpu,node-id=${n.id},socket-id=${socket++}`);
  }
  return { smp, cpuMap };
}

/** The CPU-bearing node closest to `node` (lowest distance, then lowest id): its HMAT initiator. */
export function nearestInitiator(t: ResolvedTopology, node: number): number {
  const cpuNodes = t.nodes.filter((n) => n.cpus.length > 0).map((n) => n.id);
  if (cpuNodes.includes(node)) return node;
  const row = t.distances[node] ?? [];
  return cpuNodes.reduce((best, id) => ((row[id] ?? 255) < (row[best] ?? 255) ? id : best), cpuNodes[0] ?? 0);
}

function nodeArgs(t: ResolvedTopology, n: ResolvedNode): string[] {
  const initiator = t.hmat ? `,initiator=${nearestInitiator(t, n.id)}` : '';
  if (n.memMiB === 0) return ['-numa', `node,nodeid=${n.id}${initiator}`];
  return [
    '-object',
    `memory-backend-ram,id=m${n.id},size=${n.memMiB}M`,
    '-numa',
    `node,nodeid=${n.id},memdev=m${n.id}${initiator}`,
  ];
}

function distanceArgs(t: ResolvedTopology): string[] {
  if (!t.explicitDistances) return [];
  const args: string[] = [];
  t.distances.forEach((row, a) =>
    row.forEach((d, b) => {
      if (a !== b) args.push('-numa', `dist,src=${a},dst=${b},val=${d}`);
    }),
  );
  return args;
}

/** HMAT latency/bandwidth from the SLIT distance: latency = distance ns, bandwidth = 200000/distance MB/s. */
function hmatArgs(t: ResolvedTopology): string[] {
  if (!t.hmat) return [];
  const args: string[] = [];
  for (const i of t.nodes.filter((n) => n.cpus.length > 0)) {
    for (const m of t.nodes.filter((n) => n.memMiB > 0)) {
      const d = t.distances[i.id]?.[m.id] ?? 20;
      const pair = `initiator=${i.id},target=${m.id},hierarchy=memory`;
      args.push('-numa', `hmat-lb,${pair},data-type=access-latency,latency=${d}`);
      args.push('-numa', `hmat-lb,${pair},data-type=access-bandwidth,bandwidth=${Math.round(200000 / d)}M`);
    }
  }
  return args;
}

export function buildQemuArgs(t: ResolvedTopology, q: QemuInputs): string[] {
  const { smp, cpuMap } = smpArgs(t);
  const accel = q.accel === 'kvm' ? ['-accel', 'kvm', '-cpu', 'host'] : ['-accel', 'tcg,thread=multi', '-cpu', 'max'];
  return [
    '-machine',
    t.hmat ? 'q35,hmat=on' : 'q35',
    ...accel,
    '-m',
    `${t.totalMiB}M`,
    ...smp,
    ...t.nodes.flatMap((n) => nodeArgs(t, n)),
    ...cpuMap,
    ...distanceArgs(t),
    ...hmatArgs(t),
    '-kernel',
    q.kernel,
    '-initrd',
    q.initrd,
    '-append',
    KERNEL_CMDLINE,
    '-virtfs',
    'local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap',
    '-virtfs',
    `local,path=${q.shareDir},mount_tag=labshare,security_model=none,multidevs=remap`,
    '-nodefaults',
    '-no-user-config',
    '-display',
    'none',
    ...(q.sshPort === undefined
      ? ['-net', 'none']
      : [
          '-netdev',
          `user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:${q.sshPort}-:22`,
          '-device',
          'virtio-net-pci,netdev=n0',
        ]),
    '-serial',
    `file:${q.consoleFile}`,
    '-no-reboot',
  ];
}
