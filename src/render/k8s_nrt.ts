// The node's NUMA zones as a topology.node.k8s.io/v1alpha2 NodeResourceTopology (the object
// the scheduler-plugins NodeResourceTopologyMatch plugin reads), named after the node: one
// zone per node with CPUs or memory ("node-N", type Node), its CPUs, memory and huge pages as
// resources, and the SLIT distances to every zone as costs. Pure.
//
// numakit publishes what the hardware has. It does not follow what the kubelet's CPU and
// Memory Managers hand out to Guaranteed pods, so "available" equals "allocatable" (capacity
// less --reserved-cpus); where pods pin CPUs exclusively, use NFD's topology-updater or RTE,
// which read the kubelet's podresources API (docs/fleet.md).
import { parseCpuList } from '../model/cpuset.js';
import type { Topology } from '../model/topology.js';

export const NRT_API_VERSION = 'topology.node.k8s.io/v1alpha2';
/** The label that marks an object as numakit's: one without it belongs to another exporter. */
export const MANAGED_BY = { key: 'app.kubernetes.io/managed-by', value: 'numakit' } as const;

export type TopologyManagerPolicy = 'none' | 'best-effort' | 'restricted' | 'single-numa-node';
export type TopologyManagerScope = 'container' | 'pod';

export interface NrtOptions {
  readonly node: string;
  readonly policy: TopologyManagerPolicy;
  readonly scope: TopologyManagerScope;
  /** CPUs the kubelet keeps for the system (reservedSystemCPUs): not allocatable. */
  readonly reservedCpus: readonly number[];
}

export interface ResourceInfo {
  name: string;
  capacity: string;
  allocatable: string;
  available: string;
}
export interface Zone {
  name: string;
  type: 'Node';
  costs: { name: string; value: number }[];
  resources: ResourceInfo[];
}
export interface NodeResourceTopology {
  apiVersion: typeof NRT_API_VERSION;
  kind: 'NodeResourceTopology';
  metadata: { name: string; labels: Record<string, string>; resourceVersion?: string };
  attributes: { name: string; value: string }[];
  topologyPolicies: string[];
  zones: Zone[];
}

/** The deprecated v1alpha1-style policy name some scheduler-plugins versions still read. */
export function legacyPolicyName(policy: TopologyManagerPolicy, scope: TopologyManagerScope): string {
  if (policy === 'none') return 'None';
  const name = { 'best-effort': 'BestEffort', restricted: 'Restricted', 'single-numa-node': 'SingleNUMANode' }[policy];
  return `${name}${scope === 'pod' ? 'Pod' : 'Container'}Level`;
}

const resource = (name: string, capacity: number, allocatable = capacity): ResourceInfo => ({
  name,
  capacity: String(capacity),
  allocatable: String(allocatable),
  available: String(allocatable),
});

/** "hugepages-2Mi", "hugepages-1Gi": the Kubernetes resource name of a huge page size. */
export function hugepageResource(sizeKb: number): string {
  return sizeKb % (1024 * 1024) === 0
    ? `hugepages-${sizeKb / (1024 * 1024)}Gi`
    : sizeKb % 1024 === 0
      ? `hugepages-${sizeKb / 1024}Mi`
      : `hugepages-${sizeKb}Ki`;
}

export function buildNrt(t: Topology, o: NrtOptions): NodeResourceTopology {
  const reserved = new Set(o.reservedCpus);
  const online = new Set(t.cpus.filter((c) => c.online).map((c) => c.id));
  const zones = t.nodes
    .filter((n) => n.cpus.length > 0 || (n.memTotalBytes ?? 0) > 0)
    .map((n): Zone => {
      const cpus = n.cpus.filter((c) => online.has(c));
      const resources: ResourceInfo[] = [];
      if (cpus.length > 0) resources.push(resource('cpu', cpus.length, cpus.filter((c) => !reserved.has(c)).length));
      if (n.memTotalBytes !== null) resources.push(resource('memory', n.memTotalBytes));
      for (const p of n.hugepages)
        if (p.total > 0) resources.push(resource(hugepageResource(p.sizeKb), p.total * p.sizeKb * 1024));
      const costs = t.nodes
        .filter((m) => n.distances[m.id] !== undefined)
        .map((m) => ({ name: `node-${m.id}`, value: n.distances[m.id]! }));
      return { name: `node-${n.id}`, type: 'Node', costs, resources };
    });
  return {
    apiVersion: NRT_API_VERSION,
    kind: 'NodeResourceTopology',
    metadata: { name: o.node, labels: { [MANAGED_BY.key]: MANAGED_BY.value } },
    attributes: [
      { name: 'topologyManagerPolicy', value: o.policy },
      { name: 'topologyManagerScope', value: o.scope },
    ],
    topologyPolicies: [legacyPolicyName(o.policy, o.scope)],
    zones,
  };
}

/** Reserved CPUs as the kubelet writes them ("0-1,32-33"). */
export function parseReservedCpus(text: string): number[] {
  return text === '' ? [] : parseCpuList(text);
}
