// A guest NUMA topology as the lab asks QEMU for it, and its resolved form (which CPU ids land
// on which node). Pure: no I/O, unit-tested in topology.test.ts.

/** What a lab test or `npm run lab` asks for. Lists are per node; a single number applies to all. */
export interface Topology {
  readonly name: string;
  readonly nodes: number;
  /** CPUs per node (ignored for memory-only nodes). */
  readonly cpus: number | readonly number[];
  /** Memory per node in MiB (0 = a memoryless, CPU-only node). */
  readonly memMiB: number | readonly number[];
  /** Full nodes x nodes SLIT matrix (diagonal 10); absent = the kernel's default 10/20. */
  readonly distances?: readonly (readonly number[])[];
  /** Node ids that get memory but no CPUs (CXL-like). */
  readonly memoryOnly?: readonly number[];
  /** ACPI HMAT (latency/bandwidth per initiator-target pair), derived from the distances. */
  readonly hmat?: boolean;
}

export interface ResolvedNode {
  readonly id: number;
  readonly cpus: readonly number[];
  readonly memMiB: number;
}

export interface ResolvedTopology {
  readonly name: string;
  readonly nodes: readonly ResolvedNode[];
  /** The distance matrix the guest kernel will report (10/20 when none was given). */
  readonly distances: readonly (readonly number[])[];
  readonly explicitDistances: boolean;
  readonly hmat: boolean;
  readonly totalCpus: number;
  readonly totalMiB: number;
}

export class TopologyError extends Error {
  override name = 'TopologyError';
}

/** QEMU's RAM backends are allocated as the guest touches them; the plans lab's nodes need the most (topologies.ts). */
export const MAX_GUEST_MIB = 12288;
const MAX_NODES = 64;

function perNode(value: number | readonly number[], nodes: number, what: string): number[] {
  if (typeof value === 'number') return Array.from({ length: nodes }, () => value);
  if (value.length !== nodes) {
    throw new TopologyError(`${what}: ${value.length} values given for ${nodes} nodes`);
  }
  return [...value];
}

function checkCount(n: number, what: string, min: number): void {
  if (!Number.isInteger(n) || n < min) throw new TopologyError(`${what} must be an integer >= ${min}, got ${n}`);
}

function defaultDistances(nodes: number): number[][] {
  return Array.from({ length: nodes }, (_, a) => Array.from({ length: nodes }, (_, b) => (a === b ? 10 : 20)));
}

function checkDistances(d: readonly (readonly number[])[], nodes: number): void {
  if (d.length !== nodes || d.some((row) => row.length !== nodes)) {
    throw new TopologyError(`distance matrix must be ${nodes}x${nodes}`);
  }
  d.forEach((row, a) =>
    row.forEach((v, b) => {
      if (a === b && v !== 10) throw new TopologyError(`distance ${a}->${b} must be 10 (local), got ${v}`);
      if (a !== b && (!Number.isInteger(v) || v <= 10 || v > 254)) {
        throw new TopologyError(`distance ${a}->${b} must be an integer in 11..254, got ${v}`);
      }
    }),
  );
}

/** Validates a topology and assigns CPU ids in node order (QEMU sockets are assigned in that order). */
export function resolveTopology(t: Topology): ResolvedTopology {
  checkCount(t.nodes, 'nodes', 1);
  if (t.nodes > MAX_NODES) throw new TopologyError(`at most ${MAX_NODES} nodes, got ${t.nodes}`);
  const memoryOnly = new Set(t.memoryOnly ?? []);
  for (const id of memoryOnly) {
    if (!Number.isInteger(id) || id < 0 || id >= t.nodes)
      throw new TopologyError(`memory-only node ${id} does not exist`);
  }
  const cpus = perNode(t.cpus, t.nodes, 'cpus').map((c, id) => (memoryOnly.has(id) ? 0 : c));
  const mem = perNode(t.memMiB, t.nodes, 'memory');
  cpus.forEach((c) => checkCount(c, 'cpus per node', 0));
  mem.forEach((m) => checkCount(m, 'memory per node (MiB)', 0));
  memoryOnly.forEach((id) => {
    if (mem[id] === 0) throw new TopologyError(`memory-only node ${id} needs memory`);
  });
  const totalCpus = cpus.reduce((a, b) => a + b, 0);
  const totalMiB = mem.reduce((a, b) => a + b, 0);
  if (totalCpus === 0) throw new TopologyError('the guest needs at least one CPU');
  if (mem[0] === 0) throw new TopologyError('node 0 needs memory (the kernel boots from it)');
  if (totalMiB > MAX_GUEST_MIB) throw new TopologyError(`guest memory ${totalMiB} MiB exceeds ${MAX_GUEST_MIB} MiB`);
  if (t.distances) checkDistances(t.distances, t.nodes);
  let next = 0;
  const nodes = cpus.map((c, id) => ({
    id,
    cpus: Array.from({ length: c }, () => next++),
    memMiB: mem[id] ?? 0,
  }));
  return {
    name: t.name,
    nodes,
    distances: t.distances ? t.distances.map((r) => [...r]) : defaultDistances(t.nodes),
    explicitDistances: t.distances !== undefined,
    hmat: t.hmat ?? false,
    totalCpus,
    totalMiB,
  };
}

/** A one-line description, e.g. "4 nodes, cpus 1/1/1/1, MiB 512/512/512/512, distances 10/16/22/28". */
export function describeTopology(r: ResolvedTopology): string {
  const dist = r.explicitDistances
    ? `distances ${[...new Set(r.distances.flat())].sort((a, b) => a - b).join('/')}`
    : 'default distances';
  const cpus = r.nodes.map((n) => n.cpus.length).join('/');
  const mem = r.nodes.map((n) => n.memMiB).join('/');
  return `${r.nodes.length} nodes, cpus ${cpus}, MiB ${mem}, ${dist}${r.hmat ? ', HMAT' : ''}`;
}
