// deploy/kubernetes as the tests see it: each kustomization rendered with no cluster (kubectl
// kustomize), the schema each kind is validated against (kubernetes-models: the Kubernetes
// OpenAPI schema and the Prometheus Operator CRDs, compiled), and where the API serves each
// kind (what kubectl learns from discovery), for the fake API servers of the fleet tests.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { DaemonSet } from 'kubernetes-models/apps/v1/DaemonSet';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { ClusterRole } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole';
import { ClusterRoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRoleBinding';
import { PodMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { REPO_DIR } from '../../helpers/cli.js';

export const K8S = join(REPO_DIR, 'deploy', 'kubernetes');
/** The namespace docs/fleet.md documents for every namespaced object. */
export const NAMESPACE = 'numakit';

/** A parsed YAML object of any kind, read by tests that know the kind. */
export type Obj = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  // biome-ignore lint/suspicious/noExplicitAny: the fields of every kind
  [k: string]: any;
};

interface Kind {
  readonly validate: (o: Obj) => void;
  /** API group ('' for the core group) and version, plural resource name, namespaced or not. */
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly namespaced: boolean;
}

const kind = (
  model: (o: Obj) => { validate(): void },
  group: string,
  version: string,
  plural: string,
  namespaced: boolean,
): Kind => ({ validate: (o) => model(o).validate(), group, version, plural, namespaced });

/** Every kind deploy/kubernetes renders (and the Secret the docs create): a kind not here fails. */
export const KINDS: Readonly<Record<string, Kind>> = {
  Namespace: kind((o) => new Namespace(o as never), '', 'v1', 'namespaces', false),
  ServiceAccount: kind((o) => new ServiceAccount(o as never), '', 'v1', 'serviceaccounts', true),
  Secret: kind((o) => new Secret(o as never), '', 'v1', 'secrets', true),
  Service: kind((o) => new Service(o as never), '', 'v1', 'services', true),
  DaemonSet: kind((o) => new DaemonSet(o as never), 'apps', 'v1', 'daemonsets', true),
  ClusterRole: kind((o) => new ClusterRole(o as never), 'rbac.authorization.k8s.io', 'v1', 'clusterroles', false),
  ClusterRoleBinding: kind(
    (o) => new ClusterRoleBinding(o as never),
    'rbac.authorization.k8s.io',
    'v1',
    'clusterrolebindings',
    false,
  ),
  ServiceMonitor: kind((o) => new ServiceMonitor(o as never), 'monitoring.coreos.com', 'v1', 'servicemonitors', true),
  PodMonitor: kind((o) => new PodMonitor(o as never), 'monitoring.coreos.com', 'v1', 'podmonitors', true),
};

/** The collection path of a kind: /api/v1[/namespaces/NS]/PLURAL or /apis/GROUP/VERSION[...]. */
export function collectionPath(k: Kind, namespace: string | undefined): string {
  const root = k.group === '' ? `/api/${k.version}` : `/apis/${k.group}/${k.version}`;
  return k.namespaced ? `${root}/namespaces/${namespace}/${k.plural}` : `${root}/${k.plural}`;
}

/** kubectl kustomize DIR: kubectl >= 1.21 has kustomize built in and needs no cluster for it. */
const rendered = new Map<string, Obj[]>();
export function kustomize(dir: string): Obj[] {
  const hit = rendered.get(dir);
  if (hit) return structuredClone(hit);
  const r = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8' });
  if (r.error)
    throw new Error(
      `kubectl not found: rendering deploy/kubernetes needs kubectl >= 1.21 (kustomize built in) on PATH (${r.error.message})`,
    );
  assert.equal(r.status, 0, `kubectl kustomize ${relative(REPO_DIR, dir)}: ${r.stderr}`);
  rendered.set(
    dir,
    parseAllDocuments(r.stdout).map((d) => d.toJS() as Obj),
  );
  return structuredClone(rendered.get(dir)!);
}

const subdirs = (d: string) =>
  readdirSync(join(K8S, d))
    .map((n) => join(K8S, d, n))
    .filter((p) => statSync(p).isDirectory());

/** Every kustomization that renders on its own: the base, each overlay, each variant. */
export const KUSTOMIZATIONS: readonly string[] = [join(K8S, 'base'), ...subdirs('overlays'), ...subdirs('variants')];
/** Components render only inside a variant. */
export const COMPONENTS: readonly string[] = subdirs('components');

/** The pod template of a workload (DaemonSet, Deployment, StatefulSet ...), or null. */
export function podTemplate(o: Obj): { metadata: { labels?: Record<string, string> }; spec: Obj['spec'] } | null {
  return o.spec?.template?.spec?.containers ? o.spec.template : null;
}

/** matchLabels (and only matchLabels: numakit uses no matchExpressions) against labels. */
export function selects(matchLabels: Record<string, string> | undefined, labels: Record<string, string> | undefined) {
  const want = Object.entries(matchLabels ?? {});
  return want.length > 0 && want.every(([k, v]) => labels?.[k] === v);
}
