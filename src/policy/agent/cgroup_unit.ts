// Rules for cgroups as the agent's units (--unit cgroup) and for the cgroup of any process.
// Kubernetes gives the containers of a Guaranteed pod exclusive CPUs (CPU Manager, static
// policy) and NUMA nodes (Memory Manager) by narrowing their cgroup's cpuset: such a pod was
// placed on purpose, by the kubelet, and the agent never touches it (not even with
// --override-pins). Guaranteed pods sit right under kubepods; Burstable and BestEffort ones under
// a kubepods-burstable / kubepods-besteffort level (systemd and cgroupfs drivers alike). A kubelet
// run with --cgroup-root (kind, rootless and nested clusters) names the systemd slice with that
// root's prefix (/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-burstable.slice/...). Pure.
import { formatCpuList } from '../../model/cpuset.js';

/** The cgroup belongs to a Guaranteed pod: under kubepods, with no burstable/besteffort level. */
export function isKubeGuaranteed(cgroup: string): boolean {
  const parts = cgroup.split('/').filter((p) => p !== '');
  const at = parts.findIndex((p) => p === 'kubepods' || /(^|-)kubepods\.slice$/.test(p));
  if (at < 0 || at === parts.length - 1) return false;
  return !parts.slice(at + 1).some((p) => /(^|-)(burstable|besteffort)(\.slice|$|-)/.test(p));
}

const narrower = (set: readonly number[] | null, all: readonly number[]) => set !== null && set.length > 0 && all.some((x) => !set.includes(x));

/**
 * Why a cgroup (or a process in it) is left alone for good, or null: a Guaranteed pod whose
 * cpuset (CPUs or memory nodes) is narrower than the machine's.
 */
export function cgroupPin(cgroup: string, cpus: readonly number[] | null, mems: readonly number[] | null, all: { cpus: readonly number[]; nodes: readonly number[] }): string | null {
  if (!isKubeGuaranteed(cgroup)) return null;
  if (narrower(cpus, all.cpus)) return `Kubernetes Guaranteed pod with exclusive CPUs ${formatCpuList(cpus!)} (CPU Manager): cgroup ${cgroup}`;
  if (narrower(mems, all.nodes)) return `Kubernetes Guaranteed pod bound to node ${formatCpuList(mems!)} (Memory Manager): cgroup ${cgroup}`;
  return null;
}
