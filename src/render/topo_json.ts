// `numakit topo --json`, schemaVersion 1 (documented in docs/json-schema.md).
// Additive changes keep the version; renames or removals bump it.
import { cacheName, type Cpu, type Device, type NumaNode, type Topology } from '../model/topology.js';
import { nodeLayout } from '../model/layout.js';
import type { HwlocView } from './hwloc_view.js';
import { tiersToJson } from './topo_tiers.js';

export const TOPO_SCHEMA_VERSION = 1;

/** A node, a CPU, a device as `topo --json` carries them (the keys in this order). */
function nodeJson(n: NumaNode) {
  return {
    id: n.id,
    cpus: n.cpus,
    memTotalBytes: n.memTotalBytes,
    memFreeBytes: n.memFreeBytes,
    hasCpu: n.hasCpu,
    hasMemory: n.hasMemory,
    hasNormalMemory: n.hasNormalMemory,
    distances: Object.fromEntries(Object.entries(n.distances).map(([k, v]) => [String(k), v])),
    hugepages: n.hugepages,
    access: n.access,
    access1: n.access1,
    memoryTier: n.memoryTier,
    ...(n.interleaveWeight === undefined ? {} : { interleaveWeight: n.interleaveWeight }),
  };
}

function cpuJson(c: Cpu) {
  return {
    id: c.id,
    node: c.node,
    package: c.package,
    die: c.die,
    cluster: c.cluster,
    core: c.core,
    siblings: c.siblings,
    l3: c.l3,
    online: c.online,
    allowed: c.allowed,
  };
}

function deviceJson(d: Device) {
  return {
    kind: d.kind,
    name: d.name,
    node: d.node,
    pciAddress: d.pciAddress,
    transport: d.transport,
    driver: d.driver,
    irqs: d.irqs,
    ...(d.queues ? { queues: d.queues } : {}),
    pciPath: d.pciPath ?? [],
    details: d.details,
  };
}

/** `readWarnings`: files that could not be used (main's warnings), after the topology's own notes. */
/**
 * `view`: hwloc's tree (hwloc_view.ts), carried as `hwloc` (groups, NUMA nodes with their
 * memory-side caches, the I/O tree): the objects `topo --xml` writes.
 */
export function topoToJson(
  topo: Topology,
  readWarnings: readonly string[] = [],
  { view }: { view?: HwlocView } = {},
): object {
  return {
    schemaVersion: TOPO_SCHEMA_VERSION,
    nodes: topo.nodes.map(nodeJson),
    cpus: topo.cpus.map(cpuJson),
    devices: topo.devices.map(deviceJson),
    caches: topo.caches.map((c) => ({
      name: cacheName(c),
      level: c.level,
      type: c.type,
      sizeBytes: c.sizeBytes,
      cpus: c.cpus,
    })),
    memoryTiers: tiersToJson(topo),
    layout: nodeLayout(topo),
    possibleNodes: topo.possibleNodes,
    possibleCpus: topo.possibleCpus,
    cpuset: topo.cpuset,
    kernel: {
      release: topo.kernel.kernelRelease.value,
      hypervisor: topo.kernel.hypervisor.value,
      productName: topo.kernel.productName.value,
      memTotalBytes: topo.kernel.memTotalBytes.value,
    },
    ...(view === undefined ? {} : { hwloc: view }),
    warnings: [...topo.warnings, ...readWarnings],
  };
}

export function renderTopoJson(
  topo: Topology,
  readWarnings: readonly string[] = [],
  o: { view?: HwlocView } = {},
): string {
  return JSON.stringify(topoToJson(topo, readWarnings, o), null, 2) + '\n';
}
