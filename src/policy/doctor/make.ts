// Helpers the rules share to build findings and read the common facts. Pure.
import type { Change } from '../../model/change.js';
import type { Evidence, Finding, NotChecked, Passed, Problem, ProblemSeverity } from '../../model/finding.js';
import type { Fact } from '../../model/fact.js';
import type { CpuId, NodeId, Topology } from '../../model/topology.js';

export function ev(path: string, value: string | number): Evidence {
  return { path, value: String(value) };
}

/** Evidence from a present fact. */
export function evFact<T>(f: Fact<T>, show: (v: T) => string = String): Evidence {
  return { path: f.path, value: 'absent' in f ? `absent (${f.absent})` : show(f.value) };
}

/** Why a fact is absent, in words a reader can act on. */
export function absentReason(f: Fact<unknown>, missingMeans: string): string {
  if (!('absent' in f)) return '';
  return f.absent === 'no-permission' ? `${f.path} is not readable: run as root` : `${f.path} is absent: ${missingMeans}`;
}

export interface ProblemSpec {
  readonly id: string;
  readonly severity: ProblemSeverity;
  readonly title: string;
  readonly evidence: Evidence[];
  readonly why: string;
  readonly runtime: string[];
  readonly persistent: string[];
  readonly changes?: Change[];
}

export function problem(rule: string, s: ProblemSpec): Problem {
  return {
    id: s.id, rule, severity: s.severity, title: s.title, evidence: s.evidence, why: s.why,
    fix: { runtime: s.runtime, persistent: s.persistent }, changes: s.changes ?? [],
  };
}

export function pass(rule: string, id: string, title: string, evidence: Evidence[] = [], why = ''): Passed {
  return { id, rule, severity: 'pass', title, evidence, why };
}

export function notChecked(rule: string, id: string, title: string, reason: string, evidence: Evidence[] = []): NotChecked {
  return { id, rule, severity: 'not-checked', title, evidence, why: '', reason };
}

/** Nodes that have CPUs. */
export function cpuNodes(t: Topology): NodeId[] {
  return t.nodes.filter((n) => n.cpus.length > 0).map((n) => n.id);
}

export function isMultiNode(t: Topology): boolean {
  return t.nodes.length > 1;
}

/** A pass that says the rule does not apply to a machine with one node. */
export function singleNode(rule: string, what: string): Finding {
  return pass(rule, rule, `${what}: one NUMA node, nothing to place`, [ev('sys/devices/system/node', 'one node')]);
}

/** The node whose CPUs contain every CPU in `cpus`, when the CPUs are confined to one node of several. */
export function confinedNode(t: Topology, cpus: readonly CpuId[]): NodeId | null {
  if (cpus.length === 0 || cpuNodes(t).length < 2) return null;
  const node = t.cpus.find((c) => c.id === cpus[0])?.node ?? null;
  if (node === null) return null;
  const own = new Set(t.nodes.find((n) => n.id === node)?.cpus ?? []);
  return cpus.every((c) => own.has(c)) ? node : null;
}

export function nodeCpus(t: Topology, node: NodeId): CpuId[] {
  return t.nodes.find((n) => n.id === node)?.cpus ?? [];
}

export function onlineCpus(t: Topology): CpuId[] {
  return t.cpus.filter((c) => c.online).map((c) => c.id);
}

/** The node each CPU belongs to. */
export function nodeOfCpu(t: Topology): Map<CpuId, NodeId> {
  const m = new Map<CpuId, NodeId>();
  for (const c of t.cpus) if (c.node !== null) m.set(c.id, c.node);
  return m;
}

const GiB = 2 ** 30;
export function gib(bytes: number): string {
  return `${(bytes / GiB).toFixed(1)} GiB`;
}

export function pct(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}

export function sysctlPath(key: string): string {
  return `proc/sys/${key.replace(/\./g, '/')}`;
}

/** The usual fix for one sysctl: sysctl -w now, a sysctl.d line for boot. */
export function sysctlFix(key: string, value: string | number): { runtime: string[]; persistent: string[]; changes: Change[] } {
  return {
    runtime: [`sysctl -w ${key}=${value}`],
    persistent: [`echo '${key} = ${value}' >> /etc/sysctl.d/90-numakit.conf && sysctl --system`],
    changes: [change.sysctl(key, value, `${key} = ${value}`)],
  };
}

/** Changes in the apply engine's vocabulary (src/model/change.ts). */
export const change = {
  sysctl: (key: string, value: string | number, reason: string): Change => ({ kind: 'sysctl', target: key, value: String(value), reason }),
  sysfs: (path: string, value: string | number, reason: string): Change => ({ kind: 'sysfs', target: path, value: String(value), reason }),
  irq: (irq: number, cpus: string, device: string, reason: string): Change => ({ kind: 'irq-affinity', target: irq, value: cpus, device, reason }),
  service: (unit: string, state: 'running' | 'stopped', reason: string): Change => ({ kind: 'service', target: unit, value: state, reason }),
};
