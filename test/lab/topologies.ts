// The lab's shared topology table: every lab test (topo, stat, run, apply, agent ...) boots one
// of these, so a behaviour is checked on the same machines everywhere. Total guest memory stays
// well under 4 GiB; more CPUs cost boot time under TCG on the 2-core hosts.
import type { Topology } from './topology.js';

/** Two sockets, two CPUs each, the kernel's default 10/20 distances (no SLIT given). */
export const TWO_NODE: Topology = { name: '2node', nodes: 2, cpus: 2, memMiB: 512 };

/** Four nodes in a line, one CPU each: distances 10/16/22/28 (not just 10/20). */
export const FOUR_NODE_ASYM: Topology = {
  name: '4node-asym',
  nodes: 4,
  cpus: 1,
  memMiB: 384,
  distances: [
    [10, 16, 22, 28],
    [16, 10, 16, 22],
    [22, 16, 10, 16],
    [28, 22, 16, 10],
  ],
};

/** Two CPU nodes and a CXL-like memory-only node 2 (far from both), with HMAT. */
export const THREE_NODE_CXL: Topology = {
  name: '3node-cxl',
  nodes: 3,
  cpus: [2, 2, 0],
  memMiB: [512, 512, 256],
  memoryOnly: [2],
  distances: [
    [10, 21, 30],
    [21, 10, 32],
    [30, 32, 10],
  ],
  hmat: true,
};

/** Eight nodes, one CPU each: two "sockets" of four nodes (12 inside a socket, 32 across). */
export const EIGHT_NODE: Topology = {
  name: '8node',
  nodes: 8,
  cpus: 1,
  memMiB: 256,
  distances: Array.from({ length: 8 }, (_, a) =>
    Array.from({ length: 8 }, (_, b) => (a === b ? 10 : Math.floor(a / 4) === Math.floor(b / 4) ? 12 : 32)),
  ),
};

/**
 * The plans lab's machines (test/lab/plans.lab.test.ts): every plan keeps max(10%, 2 GiB) of a
 * node for the kernel and the page cache, so its nodes must be larger than the others' for a
 * server's pool, a JVM heap or an executor to fit. QEMU allocates a RAM backend as the guest
 * touches it: the guest's servers touch well under 2 GiB in all. 5.5 GiB is what a Spark worker
 * needs: MemTotal (about 5.3 GiB) minus the reserve leaves 3.3 GiB for the smallest executor
 * (1g heap + 1g overhead) and the worker's own 1g JVM.
 */
export const TWO_NODE_PLANS: Topology = { name: '2node-plans', nodes: 2, cpus: 2, memMiB: 5632 };

/** Four nodes in a line as 4node-asym, large enough for a Redis and a service on each. */
export const FOUR_NODE_PLANS: Topology = { ...FOUR_NODE_ASYM, name: '4node-asym-plans', memMiB: 2560 };

/** The topologies plans.lab.test.ts boots (with systemd): its guests carry the topo checks too. */
export const PLANS_TOPOLOGIES: readonly Topology[] = [TWO_NODE_PLANS, FOUR_NODE_PLANS];

export const LAB_TOPOLOGIES: readonly Topology[] = [
  TWO_NODE,
  FOUR_NODE_ASYM,
  THREE_NODE_CXL,
  EIGHT_NODE,
  TWO_NODE_PLANS,
  FOUR_NODE_PLANS,
];

export function topologyByName(name: string): Topology | undefined {
  return LAB_TOPOLOGIES.find((t) => t.name === name);
}
