// A cgroup as `numakit stat --cgroup`, top and serve see it: its memory per node (memory.numa_stat),
// the CPUs and memory nodes its cpuset allows, and the processes in it with their locality. Also
// the Kubernetes names a kubelet writes into cgroup paths. Pure.

export interface CgroupNodeBytes {
  readonly anon: number;
  readonly file: number;
  readonly total: number;
}

export interface CgroupFacts {
  /** "/kubepods.slice/.../cri-containerd-abc.scope", as /proc/PID/cgroup names it. */
  readonly path: string;
  readonly version: 1 | 2;
  /** Node id -> bytes from memory.numa_stat; null when it has none (no memory controller). */
  readonly numaStat: Readonly<Record<string, CgroupNodeBytes>> | null;
  /** cpuset.cpus.effective / cpuset.mems.effective (v1: effective_cpus/mems), inherited; null when unknown. */
  readonly cpus: readonly number[] | null;
  readonly mems: readonly number[] | null;
}

export interface KubeLabels {
  readonly qos: string;
  /** The pod's UID (the kubelet names pod cgroups by it). */
  readonly pod: string;
  /** The container id (12 characters, as `crictl ps` shows it); '' for the pod's own cgroup. */
  readonly container: string;
}

/**
 * Pod and container of a cgroup under kubepods, for the systemd driver
 * ("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid>.slice/cri-containerd-<id>.scope")
 * and the cgroupfs one ("/kubepods/burstable/pod<uid>/<id>"); guaranteed pods sit right under
 * kubepods. null outside kubepods.
 */
export function kubeLabels(path: string): KubeLabels | null {
  const parts = path.split('/').filter((p) => p !== '');
  if (parts[0] !== 'kubepods' && parts[0] !== 'kubepods.slice') return null;
  let qos = 'guaranteed';
  let pod = '';
  let container = '';
  for (const p of parts.slice(1)) {
    const q = /^kubepods-(besteffort|burstable)\.slice$/.exec(p) ?? /^(besteffort|burstable)$/.exec(p);
    const u = /pod([0-9a-f_-]{8,})(?:\.slice)?$/.exec(p);
    if (q) qos = q[1]!;
    else if (u) pod = u[1]!.replace(/_/g, '-');
    else if (pod !== '')
      container = p
        .replace(/^[a-z-]+-(?=[0-9a-f]{12,}\.scope$)/, '')
        .replace(/\.scope$/, '')
        .slice(0, 12);
  }
  return pod === '' ? null : { qos, pod, container };
}

/** Whether `path` is `under` or inside it. */
export function within(path: string, under: string): boolean {
  const u = under === '/' ? '' : under.replace(/\/+$/, '');
  return u === '' || path === u || path.startsWith(`${u}/`);
}

/** Processes by the cgroup `cgroupOf` gives (null: left out). */
export function groupByCgroup<P extends { readonly pid: number }>(
  samples: readonly P[],
  cgroupOf: (pid: number) => string | null,
): Map<string, P[]> {
  const out = new Map<string, P[]>();
  for (const s of samples) {
    const cg = cgroupOf(s.pid);
    if (cg !== null) (out.get(cg) ?? out.set(cg, []).get(cg)!).push(s);
  }
  return out;
}
