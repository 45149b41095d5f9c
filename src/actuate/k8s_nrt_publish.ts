// Publishing a NodeResourceTopology: created when absent, replaced when numakit made it,
// left alone (an error naming its owner) when another exporter made it: NFD's
// topology-updater, RTE or anything else without numakit's managed-by label.
import { NumakitError } from '../model/errors.js';
import { MANAGED_BY, type NodeResourceTopology } from '../render/k8s_nrt.js';
import { apiRequest, type ApiConnection } from './k8s_api.js';

export const NRT_PATH = '/apis/topology.node.k8s.io/v1alpha2/noderesourcetopologies';

interface Existing {
  metadata?: { resourceVersion?: string; labels?: Record<string, string>; managedFields?: { manager?: string }[] };
  attributes?: unknown;
  topologyPolicies?: unknown;
  zones?: unknown;
}

function message(body: unknown): string {
  return typeof body === 'object' && body !== null && 'message' in body
    ? String((body as { message: unknown }).message)
    : (JSON.stringify(body)?.slice(0, 200) ?? '');
}

function fail(what: string, r: { status: number; body: unknown }): never {
  throw new NumakitError(
    `k8s nrt: ${what}: HTTP ${r.status}${r.status === 404 ? ' (is the NodeResourceTopology CRD, v1alpha2, installed?)' : ''}: ${message(r.body)}`,
  );
}

/** The owner named in an object that is not numakit's: its managed-by label or field manager. */
export function ownerOf(o: Existing): string | null {
  const label = o.metadata?.labels?.[MANAGED_BY.key];
  if (label === MANAGED_BY.value) return null;
  const managers = [
    ...new Set(
      (o.metadata?.managedFields ?? []).map((m) => m.manager).filter((m): m is string => typeof m === 'string'),
    ),
  ];
  return label ?? (managers.length > 0 ? managers.join(', ') : 'unknown (no managed-by label)');
}

export type PublishOutcome = 'created' | 'updated' | 'unchanged';

const same = (a: Existing, b: NodeResourceTopology) =>
  JSON.stringify([a.attributes, a.topologyPolicies, a.zones]) ===
  JSON.stringify([b.attributes, b.topologyPolicies, b.zones]);

export async function publishNrt(c: ApiConnection, nrt: NodeResourceTopology): Promise<PublishOutcome> {
  const path = `${NRT_PATH}/${encodeURIComponent(nrt.metadata.name)}`;
  const got = await apiRequest(c, 'GET', path);
  if (
    got.status === 404 &&
    (got.body as { details?: { kind?: string } } | null)?.details?.kind === 'noderesourcetopologies'
  ) {
    const created = await apiRequest(c, 'POST', NRT_PATH, nrt);
    if (created.status !== 201 && created.status !== 200) fail(`creating ${nrt.metadata.name}`, created);
    return 'created';
  }
  if (got.status !== 200) fail(`reading ${nrt.metadata.name}`, got);
  const existing = got.body as Existing;
  const owner = ownerOf(existing);
  if (owner !== null)
    throw new NumakitError(
      `k8s nrt: NodeResourceTopology ${nrt.metadata.name} belongs to ${owner}; numakit never overwrites another exporter's object (delete it, or run one exporter per node)`,
    );
  if (same(existing, nrt)) return 'unchanged';
  const put = await apiRequest(c, 'PUT', path, {
    ...nrt,
    metadata: { ...nrt.metadata, resourceVersion: existing.metadata?.resourceVersion },
  });
  if (put.status !== 200) fail(`replacing ${nrt.metadata.name}`, put);
  return 'updated';
}
