// A Kubernetes container's constraints, read from the rendered manifests, as a shell command
// that runs the container's command in a lab guest the way the pod would: in its own mount
// namespace with the image mounted at /opt/numakit-image, its writable volumes (emptyDir as
// tmpfs, hostPath as the host directory), the root file system, /sys (when the manifest mounts
// it read-only) and the runtime's read-only /proc/sys and /proc/irq read-only, as the pod's user,
// with the capability bounding set cut to the manifest's list (setpriv) and no new privileges.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import type { IDaemonSet } from 'kubernetes-models/apps/v1/DaemonSet';
import { parseAllDocuments } from 'yaml';
import { shellQuote } from './guest.js';
import { REPO_ROOT } from './setup.js';

export interface ContainerSpec {
  readonly name: string;
  readonly argv: string[];
  readonly env: Record<string, string>;
  readonly uid: number;
  readonly caps: string[];
  readonly sysReadOnly: boolean;
  readonly readOnlyRoot: boolean;
  /** Mount path -> 'tmpfs' (emptyDir) or the host path (hostPath), for writable volumes. */
  readonly writable: Record<string, string>;
  /** Mount path -> the mode of the files of a mounted Secret (its defaultMode; Kubernetes' own default 0644). */
  readonly secretModes: Record<string, number>;
}

/** The DaemonSet's container (or init container) `name` in `kubectl kustomize DIR`. */
export function containerSpec(dir: string, name: string, init = false): ContainerSpec {
  const r = spawnSync('kubectl', ['kustomize', join(REPO_ROOT, 'deploy', 'kubernetes', dir)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`kubectl kustomize ${dir}: ${r.stderr || r.error?.message}`);
  const ds = parseAllDocuments(r.stdout)
    .map((d) => d.toJS() as { kind?: string })
    .find((o) => o.kind === 'DaemonSet') as IDaemonSet | undefined;
  const pod = ds?.spec?.template.spec;
  if (pod === undefined) throw new Error(`${dir}: no DaemonSet with a pod spec`);
  const c = (init ? (pod.initContainers ?? []) : pod.containers).find((x) => x.name === name);
  if (!c) throw new Error(`${dir}: no ${init ? 'init ' : ''}container ${name}`);
  const env: Record<string, string> = {};
  for (const e of c.env ?? [])
    env[e.name] =
      e.value ??
      (e.valueFrom?.fieldRef?.fieldPath === 'status.podIP'
        ? '127.0.0.1'
        : e.valueFrom?.fieldRef?.fieldPath === 'spec.nodeName'
          ? 'lab-node'
          : '');
  // Kubernetes expands $(VAR) in command and args from the container's env.
  const expand = (s: string) => s.replace(/\$\(([A-Z_][A-Z0-9_]*)\)/g, (m, v: string) => env[v] ?? m);
  const writable: Record<string, string> = {};
  const secretModes: Record<string, number> = {};
  let sysReadOnly = false;
  for (const m of c.volumeMounts ?? []) {
    const v = pod.volumes?.find((x) => x.name === m.name);
    if (v === undefined) throw new Error(`${dir}: container ${name} mounts ${m.name}, which is no volume of the pod`);
    if (m.mountPath === '/sys') sysReadOnly = m.readOnly === true;
    else if (m.readOnly !== true && v.emptyDir) writable[m.mountPath] = 'tmpfs';
    else if (m.readOnly !== true && v.hostPath) writable[m.mountPath] = v.hostPath.path;
    if (v.secret) secretModes[m.mountPath] = v.secret.defaultMode ?? 0o644;
  }
  return {
    name,
    env,
    writable,
    secretModes,
    sysReadOnly,
    argv: [...(c.command ?? []), ...(c.args ?? [])].map(expand),
    uid: c.securityContext?.runAsUser ?? pod.securityContext?.runAsUser ?? 0,
    caps: [...(c.securityContext?.capabilities?.add ?? [])],
    readOnlyRoot: c.securityContext?.readOnlyRootFilesystem === true,
  };
}

export const IMAGE_MOUNT = '/opt/numakit-image';

/**
 * The shell command that runs `argv` (default: the container's) under the container's
 * constraints; `dropCap` removes one of its capabilities, `rewrite` edits the argv first.
 */
export function podCommand(
  spec: ContainerSpec,
  image: string,
  o: { dropCap?: string; argv?: string[]; background?: boolean } = {},
): string {
  const caps = spec.caps.filter((c) => c !== o.dropCap);
  if (o.dropCap !== undefined && caps.length === spec.caps.length)
    throw new Error(`${spec.name} has no capability ${o.dropCap} to drop`);
  const setup = [
    `mkdir -p ${IMAGE_MOUNT} && mount --bind ${shellQuote(image)} ${IMAGE_MOUNT}`,
    ...Object.entries(spec.writable).map(([path, src]) =>
      src === 'tmpfs'
        ? `mkdir -p ${path} && mount -t tmpfs -o mode=1777 tmpfs ${path}`
        : `mkdir -p ${src} ${path} && mount --bind ${src} ${path}`,
    ),
    ...(spec.sysReadOnly ? ['mount --bind /sys /sys && mount -o remount,bind,ro /sys'] : []),
    'mount --bind /proc/sys /proc/sys && mount -o remount,bind,ro /proc/sys',
    'mount --bind /proc/irq /proc/irq && mount -o remount,bind,ro /proc/irq',
    ...(spec.readOnlyRoot ? ['mount -o remount,bind,ro /'] : []),
  ];
  const bounding = ['-all', ...caps.map((c) => `+${c.toLowerCase()}`)].join(',');
  const env = Object.entries({
    ...spec.env,
    PATH: `${IMAGE_MOUNT}/usr/local/bin:${dirname(process.execPath)}:/usr/sbin:/usr/bin:/sbin:/bin`,
    HOME: '/tmp',
  })
    .map(([k, v]) => `${k}=${shellQuote(v)}`)
    .join(' ');
  const argv = (o.argv ?? spec.argv).map(shellQuote).join(' ');
  const inner = `${setup.join(' && ')} && exec env -i ${env} setpriv --reuid ${spec.uid} --regid ${spec.uid} --clear-groups --inh-caps=-all --bounding-set=${bounding} --no-new-privs -- ${argv}`;
  return `unshare --mount --propagation private sh -c ${shellQuote(inner)}${o.background ? ' &' : ''}`;
}
