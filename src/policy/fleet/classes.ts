// Topology classes: hosts with the same nodes, CPUs per node and distances, and memory per node
// within 2% of the class's first host (DIMMs of one size report MemTotal a few MiB apart, the
// firmware's reservations differ). Pure.
import type { TopologyClass, TopologyShape } from '../../model/fleet.js';

export const MEMORY_TOLERANCE = 0.02;

function exactKey(s: TopologyShape): string {
  return JSON.stringify([s.nodeIds, s.cpus, s.distances]);
}

function memoryClose(a: TopologyShape, b: TopologyShape): boolean {
  return a.memBytes.every((m, i) => {
    const o = b.memBytes[i] ?? null;
    if (m === null || o === null) return m === o;
    return Math.abs(m - o) <= MEMORY_TOLERANCE * Math.max(m, o);
  });
}

const GIB = 2 ** 30;

function gib(bytes: number): string {
  const g = bytes / GIB;
  return g >= 10 ? `${Math.round(g)}` : g.toFixed(1).replace(/\.0$/, '');
}

function uniform<T>(xs: readonly T[]): boolean {
  return xs.every((x) => x === xs[0]);
}

/** "2 nodes x 64 CPUs, 96 GiB/node, distances 10/21"; uneven nodes are listed one by one. */
export function describeShape(s: TopologyShape): string {
  const n = s.cpus.length;
  const cpus = uniform(s.cpus)
    ? `${n} node${n === 1 ? '' : 's'} x ${s.cpus[0] ?? 0} CPUs`
    : `${n} nodes, CPUs ${s.cpus.join('/')}`;
  const mem = s.memBytes.map((m) => (m === null ? '?' : gib(m)));
  const memText = uniform(mem) ? `${mem[0]} GiB/node` : `GiB ${mem.join('/')}`;
  const dist = [...new Set(s.distances.flat())]
    .filter((d) => d > 0)
    .sort((a, b) => a - b)
    .join('/');
  return `${cpus}, ${memText}${n > 1 ? `, distances ${dist}` : ''}`;
}

/** Groups hosts into classes, largest class first (then by label). */
export function topologyClasses(hosts: readonly { host: string; shape: TopologyShape }[]): TopologyClass[] {
  const classes: { shape: TopologyShape; key: string; hosts: string[] }[] = [];
  for (const h of hosts) {
    const key = exactKey(h.shape);
    const c = classes.find((x) => x.key === key && memoryClose(x.shape, h.shape));
    if (c) c.hosts.push(h.host);
    else classes.push({ shape: h.shape, key, hosts: [h.host] });
  }
  return classes
    .map((c) => ({ label: describeShape(c.shape), shape: c.shape, hosts: [...c.hosts].sort() }))
    .sort((a, b) => b.hosts.length - a.hosts.length || a.label.localeCompare(b.label));
}
