// `numakit topo` human view: summary line, one block per node, distances, warnings.
import { formatCpuList } from '../model/cpuset.js';
import { nodeLayout } from '../model/layout.js';
import {
  cpusOfNode,
  machineMemoryBytes,
  packageIds,
  physicalCores,
  type Cpu,
  type Device,
  type NumaNode,
  type Topology,
} from '../model/topology.js';
import type { HwlocView } from './hwloc_view.js';
import { renderInterleaveWeights } from './interleave_weights.js';
import { hwlocSections, memCacheLines } from './topo_hwloc_lines.js';
import { cacheLines } from './topo_caches.js';
import { hmatLines, tierLines } from './topo_tiers.js';
import { formatBytes, plural } from './units.js';

export function summaryLine(topo: Topology): string {
  const online = topo.cpus.filter((c) => c.online);
  const mem = machineMemoryBytes(topo);
  return [
    plural(topo.nodes.length, 'node'),
    plural(packageIds(topo).length, 'package'),
    plural(physicalCores(online), 'core'),
    plural(online.length, 'thread'),
    `${formatBytes(mem)} memory`,
  ].join(', ');
}

export function describeDevice(d: Device): string {
  const bits: string[] = [];
  if (d.driver) bits.push(d.driver);
  const path = d.pciPath ?? [];
  // The PCI bridges above it (not the host bridge every device has): "under 0000:40:01.1".
  const under = path.length > 1 ? ` under ${path.slice(1).join(' > ')}` : '';
  if (d.pciAddress && d.pciAddress !== d.name) bits.push(`${d.pciAddress}${under}`);
  else if (under !== '') bits.push(under.trim());
  if (d.transport) bits.push(d.transport);
  if (typeof d.details.speedMbps === 'number') bits.push(`${d.details.speedMbps} Mb/s`);
  if (d.queues && d.queues.rx > 0) bits.push(plural(d.queues.rx, 'rx queue'));
  if (d.irqs.length > 0) bits.push(plural(d.irqs.length, 'IRQ'));
  if (typeof d.details.model === 'string') bits.push(d.details.model);
  return `${d.kind} ${d.name}${bits.length > 0 ? ` (${bits.join(', ')})` : ''}`;
}

function hugepageText(n: NumaNode): string | null {
  const used = n.hugepages.filter((p) => p.total > 0);
  if (used.length === 0) return null;
  return used
    .map((p) => `${p.sizeKb >= 1024 ? `${p.sizeKb / 1024}M` : `${p.sizeKb}k`}: ${p.free}/${p.total} free`)
    .join(', ');
}

/** "package 0 (Intel(R) Xeon(R) Gold 6338)", like lstopo's Package above the node; null for a memory-only node. */
export function packageText(topo: Topology, cpus: readonly Cpu[]): string | null {
  const pkgs = [...new Set(cpus.map((c) => c.package).filter((p): p is number => p !== null))].sort((a, b) => a - b);
  if (pkgs.length === 0) return null;
  const models = topo.kernel.cpuModels?.value ?? {};
  const names = [...new Set(cpus.map((c) => models[String(c.id)]).filter((m): m is string => m !== undefined))];
  return `${pkgs.length === 1 ? 'package' : 'packages'} ${formatCpuList(pkgs)}${names.length > 0 ? ` (${names.join(', ')})` : ''}`;
}

function nodeBlock(topo: Topology, n: NumaNode, view: HwlocView | undefined): string[] {
  const cpus = cpusOfNode(topo, n.id);
  const offline = cpus.filter((c) => !c.online).map((c) => c.id);
  const cpuText =
    n.cpus.length === 0
      ? 'no CPUs (memory-only)'
      : `CPUs ${formatCpuList(n.cpus)} (${plural(physicalCores(cpus), 'core')})`;
  const memText =
    n.memTotalBytes === null
      ? 'memory unknown (no meminfo)'
      : n.memTotalBytes === 0
        ? 'no memory'
        : `memory ${formatBytes(n.memTotalBytes)}, ${formatBytes(n.memFreeBytes)} free`;
  const lines = [`node ${n.id}  ${cpuText}; ${memText}`];
  if (offline.length > 0) lines.push(`        offline CPUs: ${formatCpuList(offline)}`);
  const denied = cpus.filter((c) => !c.allowed).map((c) => c.id);
  if (denied.length > 0 && topo.cpuset)
    lines.push(`        not allowed (outside cgroup ${topo.cpuset.cgroup}'s cpuset): ${formatCpuList(denied)}`);
  const pkg = packageText(
    topo,
    cpus.filter((c) => c.online),
  );
  if (pkg !== null) lines.push(`        ${pkg}`);
  for (const l of cacheLines(
    topo,
    cpus.filter((c) => c.online),
  ))
    lines.push(`        ${l}`);
  const hp = hugepageText(n);
  if (hp) lines.push(`        huge pages ${hp}`);
  for (const l of hmatLines(n)) lines.push(`        ${l}`);
  const numa = view?.numa.find((v) => v.id === n.id);
  if (numa !== undefined) for (const l of memCacheLines(numa)) lines.push(`        ${l}`);
  if (n.memoryTier !== null) lines.push(`        memory tier ${n.memoryTier}`);
  for (const d of topo.devices.filter((x) => x.node === n.id)) lines.push(`        ${describeDevice(d)}`);
  return lines;
}

export function renderDistances(topo: Topology): string[] {
  const ids = topo.nodes.map((n) => n.id);
  if (topo.nodes.every((n) => Object.keys(n.distances).length === 0)) return ['distances: not available'];
  const w = Math.max(3, ...topo.nodes.flatMap((n) => Object.values(n.distances).map((v) => String(v).length + 1)));
  const lines = ['distances:', `      ${ids.map((i) => String(i).padStart(w)).join('')}`];
  for (const n of topo.nodes) {
    lines.push(`  ${String(n.id).padStart(3)}:${ids.map((k) => String(n.distances[k] ?? '-').padStart(w)).join('')}`);
  }
  return lines;
}

/** "layout: NPS4: ..." for a machine whose sockets hold several nodes or one; null when unknown. */
export function layoutLine(topo: Topology): string | null {
  const l = nodeLayout(topo);
  return l === null || topo.nodes.length <= 1 ? null : `layout: ${l.advice}`;
}

/** `view`: hwloc's tree (hwloc_view.ts); with it the text shows its groups, memory-side caches and I/O tree. */
export function renderTopoText(topo: Topology, view?: HwlocView): string {
  const layout = layoutLine(topo);
  const out = [summaryLine(topo), ...(layout === null ? [] : [layout]), ''];
  for (const n of topo.nodes) out.push(...nodeBlock(topo, n, view));
  const tiers = tierLines(topo);
  if (tiers.length > 0) out.push('', ...tiers);
  if (view !== undefined) out.push(...hwlocSections(view));
  const unknown = topo.devices.filter((d) => d.node === null);
  if (unknown.length > 0) {
    out.push('', 'devices on an unknown node (firmware gives no numa_node):');
    for (const d of unknown) out.push(`  ${topo.nodes.length > 1 ? '! ' : ''}${describeDevice(d)}`);
  }
  if (topo.caches.length === 0 && topo.cpus.length > 0)
    out.push('', 'caches: unknown (sysfs has no cpuN/cache directories)');
  if (topo.cpuset) {
    out.push(
      '',
      `cgroup ${topo.cpuset.cgroup} allows CPUs ${formatCpuList(topo.cpuset.cpus)} only (/${topo.cpuset.path})`,
    );
  }
  const weighted = topo.nodes.filter((n) => n.interleaveWeight !== undefined);
  if (weighted.length > 0) {
    const line = renderInterleaveWeights(
      weighted.map((n) => n.id),
      (id) => weighted.find((n) => n.id === id)?.interleaveWeight,
    ).slice(0, -1); // the line without its newline; its trailing space stays, as numactl prints it
    out.push('', `weighted interleave, nodes ${formatCpuList(weighted.map((n) => n.id))}:`, line);
  }
  out.push('', ...renderDistances(topo));
  const warns = topo.warnings.filter((w) => !/unknown node/.test(w));
  if (warns.length > 0) out.push('', 'warnings:', ...warns.map((w) => `  ! ${w}`));
  return out.join('\n') + '\n';
}
