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

const narrower = (set: readonly number[] | null, all: readonly number[]) =>
  set !== null && set.length > 0 && all.some((x) => !set.includes(x));

export interface PinContext {
  /** The CPUs and nodes the agent places on (its own cpuset's). */
  readonly cpus: readonly number[];
  readonly nodes: readonly number[];
  /** The cgroup's CPU limit in CPUs (cpu.max), null for none; read only for a narrowed Guaranteed pod. */
  readonly cpuLimit?: () => number | null;
}

/**
 * Why a cgroup (or a process in it) is left alone for good, or null: a Guaranteed pod whose
 * cpuset (CPUs or memory nodes) the kubelet narrowed. The CPU Manager's static policy gives a
 * container with a whole-CPU limit of N exactly N exclusive CPUs; every other container,
 * Guaranteed pods with a fractional limit included (and all of them under the policy "none"),
 * runs in the shared pool, which other pods' exclusive CPUs narrow. So a narrower cpuset whose
 * size is not its whole-CPU limit is the shared pool, placed within like any cpuset; with no
 * limit in cpu.max (newer kubelets can leave it off exclusive CPUs; --cpu-cfs-quota=false sets none
 * at all) the cgroup cannot tell the two apart and the pod is left alone, saying so.
 */
export function cgroupPin(
  cgroup: string,
  cpus: readonly number[] | null,
  mems: readonly number[] | null,
  ctx: PinContext,
): string | null {
  if (!isKubeGuaranteed(cgroup)) return null;
  if (narrower(cpus, ctx.cpus)) {
    const limit = ctx.cpuLimit?.() ?? null;
    const list = formatCpuList(cpus!);
    if (limit === null)
      return `Kubernetes Guaranteed pod with a cpuset narrower than the node's, CPUs ${list}: exclusive CPUs (CPU Manager) or the shared pool, which its cgroup cannot tell apart without a CPU limit in cpu.max: cgroup ${cgroup}`;
    if (Number.isInteger(limit) && limit === cpus!.length)
      return `Kubernetes Guaranteed pod with exclusive CPUs ${list} (CPU Manager): cgroup ${cgroup}`;
  }
  if (narrower(mems, ctx.nodes))
    return `Kubernetes Guaranteed pod bound to node ${formatCpuList(mems!)} (Memory Manager): cgroup ${cgroup}`;
  return null;
}
