// The cache lines of `numakit topo` for one node: each cache level with its size and what shares
// it (a core, N CPUs), then the L3 groups (EPYC's CCX/CCD, a sub-NUMA cluster) when a node has
// more than one, then dies and clusters when a node's package has several. Pure.
import { formatCpuList } from '../model/cpuset.js';
import { cacheName, cachesOfCpus, cpuById, l3Groups, type Cache, type Cpu, type Topology } from '../model/topology.js';
import { formatBytes, plural } from './units.js';

/** "per core", "per 8 CPUs", "per 4-8 CPUs": what each instance of one cache level serves. */
function sharing(topo: Topology, instances: readonly Cache[]): string {
  const byId = cpuById(topo);
  const perCore = instances.every((c) => {
    const first = byId.get(c.cpus[0]!);
    return (
      first !== undefined && first.siblings.length === c.cpus.length && c.cpus.every((x) => first.siblings.includes(x))
    );
  });
  if (perCore) return 'per core';
  const counts = [...new Set(instances.map((c) => c.cpus.length))].sort((a, b) => a - b);
  return counts.length === 1 ? `per ${plural(counts[0]!, 'CPU')}` : `per ${counts[0]}-${counts.at(-1)} CPUs`;
}

/** Exact, as cache sizes are: "32 MiB", "1280 KiB" (never a rounded "1.3 MiB"). */
export function cacheSizeText(bytes: number): string {
  return bytes % 2 ** 20 === 0 && bytes > 0
    ? `${bytes / 2 ** 20} MiB`
    : bytes % 1024 === 0
      ? `${bytes / 1024} KiB`
      : formatBytes(bytes);
}

function sizeText(instances: readonly Cache[], noneKnown: boolean): string {
  const sizes = [...new Set(instances.map((c) => c.sizeBytes))];
  if (noneKnown) return '';
  if (sizes.some((s) => s === null)) return ' (size unknown)';
  return ` ${sizes.map((s) => cacheSizeText(s!)).join('/')}`;
}

/** "L1d 48 KiB, L1i 32 KiB, L2 2 MiB per core; L3 32 MiB per 16 CPUs" for the caches of `cpus`. */
export function cacheSummary(topo: Topology, cpus: readonly number[]): string | null {
  const caches = cachesOfCpus(topo, cpus);
  if (caches.length === 0) return null;
  const byName = new Map<string, Cache[]>();
  for (const c of caches) (byName.get(cacheName(c)) ?? byName.set(cacheName(c), []).get(cacheName(c))!).push(c);
  // Consecutive levels with the same sharing read as one phrase: "L1d 48 KiB, L2 2 MiB per core".
  const phrases: { share: string; items: string[] }[] = [];
  // No size at all (captures made before sizes were read, some firmware): said once.
  const noneKnown = caches.every((c) => c.sizeBytes === null);
  for (const [name, instances] of byName) {
    const share = sharing(topo, instances);
    const item = `${name}${sizeText(instances, noneKnown)}`;
    const last = phrases.at(-1);
    if (last?.share === share) last.items.push(item);
    else phrases.push({ share, items: [item] });
  }
  return `${phrases.map((p) => `${p.items.join(', ')} ${p.share}`).join('; ')}${noneKnown ? ' (sizes unknown)' : ''}`;
}

/** Distinct values of `key` among `cpus`, when some package holds more than one of them. */
function splitWithinPackage(cpus: readonly Cpu[], key: 'die' | 'cluster'): Map<number, number[]> | null {
  const groups = new Map<string, { id: number; cpus: number[] }>();
  for (const c of cpus) {
    const v = c[key];
    if (v === null || v < 0 || c.package === null) continue;
    const k = `${c.package}/${key === 'cluster' ? `${c.die}/` : ''}${v}`;
    (groups.get(k) ?? groups.set(k, { id: v, cpus: [] }).get(k)!).cpus.push(c.id);
  }
  const packages = new Set(cpus.map((c) => c.package));
  if (groups.size <= packages.size) return null;
  // A "cluster" of one core is no grouping (kernels give each core its own cluster_id on x86).
  if (key === 'cluster' && [...groups.values()].every((g) => g.cpus.length <= (cpus[0]?.siblings.length ?? 1)))
    return null;
  return new Map([...groups.values()].map((g, i) => [i, g.cpus]));
}

/** The lines under a node's heading: caches, L3 groups, dies, clusters. */
export function cacheLines(topo: Topology, cpus: readonly Cpu[]): string[] {
  const ids = cpus.map((c) => c.id);
  const lines: string[] = [];
  const summary = cacheSummary(topo, ids);
  if (summary !== null) lines.push(`caches ${summary}`);
  const groups = l3Groups(topo, ids);
  if (groups.length > 1) lines.push(`L3 groups ${groups.map((g) => formatCpuList(g)).join(' | ')}`);
  for (const key of ['die', 'cluster'] as const) {
    const split = splitWithinPackage(cpus, key);
    if (split !== null) lines.push(`${key}s ${[...split.values()].map((g) => formatCpuList(g)).join(' | ')}`);
  }
  return lines;
}
