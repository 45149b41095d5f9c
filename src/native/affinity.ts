// CPU affinity of a process or thread (sched_getaffinity(2)/sched_setaffinity(2)) and the
// CPU/node the caller runs on (getcpu(2)).
import { errnoName } from './errors.js';
import { fail, libc } from './libc.js';
import { fromMask, longsFor, maskBitsFor, toMask } from './mask.js';
import { possibleCpuCount } from './possible.js';

export interface CpuMaskOptions {
  /** Bits in the CPU mask; default nr_cpu_ids from /sys/devices/system/cpu/possible. */
  cpuCount?: number;
}

/**
 * CPUs that `pid` may run on. `pid` is a pid or a thread id (from /proc/PID/task);
 * 0 means the calling thread.
 */
export function getAffinity(pid = 0, options: CpuMaskOptions = {}): number[] {
  const nbits = options.cpuCount ?? possibleCpuCount();
  const mask = new BigUint64Array(longsFor(nbits));
  if (libc().sched_getaffinity(pid, mask.byteLength, mask) < 0) {
    fail('sched_getaffinity', { target: `pid ${pid}`, hint: hintFor(pid, libc().koffi.errno()) });
  }
  return fromMask(mask, nbits);
}

/**
 * Restricts `pid` (a pid or thread id; 0 = the calling thread only, even inside a
 * worker_thread) to `cpus`.
 */
export function setAffinity(pid: number, cpus: readonly number[], options: CpuMaskOptions = {}): void {
  const mask = toMask(cpus, maskBitsFor(cpus, options.cpuCount ?? possibleCpuCount()));
  if (libc().sched_setaffinity(pid, mask.byteLength, mask) < 0) {
    fail('sched_setaffinity', {
      target: `pid ${pid}, cpus ${cpus.join(',') || 'none'}`,
      hint: cpus.length === 0 ? 'the CPU list is empty' : hintFor(pid, libc().koffi.errno()),
    });
  }
}

/** Why, for the errnos sched_{get,set}affinity(2) document. */
function hintFor(pid: number, errno: number): string | undefined {
  switch (errnoName(errno)) {
    case 'ESRCH':
      return 'the process or thread has exited';
    case 'EPERM':
      return pid === 0
        ? 'this thread may not change its CPUs (a SCHED_DEADLINE task?)'
        : "another user's process needs CAP_SYS_NICE";
    case 'EINVAL':
      return "no CPU of the list is online and in the cpuset (Cpus_allowed), or the mask is smaller than the kernel's";
    default:
      return undefined;
  }
}

const cpuOut = new Uint32Array(1);
const nodeOut = new Uint32Array(1);

/** The CPU and NUMA node the calling thread is running on right now. */
export function getcpu(): { cpu: number; node: number } {
  if (libc().getcpu(cpuOut, nodeOut, null) < 0) fail('getcpu');
  return { cpu: cpuOut[0]!, node: nodeOut[0]! };
}
