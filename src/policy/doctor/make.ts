// Helpers the rules share to build findings and read the common facts. Pure.
import { formatBytes } from '../../model/bytes.js';
import type { Change } from '../../model/change.js';
import type { Evidence, Finding, NotChecked, Passed, Problem, ProblemSeverity } from '../../model/finding.js';
import type { Fact } from '../../model/fact.js';
import type { CpuId, NodeId, Topology } from '../../model/topology.js';
import { sysctl, sysfs } from '../tuning/change.js';

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
  if (f.absent === 'no-permission') return `${f.path} is not readable: run as root`;
  if (f.absent === 'unparseable') return `${f.path} could not be parsed (see the warning)`;
  if (f.absent === 'empty') return `${f.path} is empty (no value)`;
  return `${f.path} is absent: ${missingMeans}`;
}

export interface ProblemSpec {
  readonly id: string;
  readonly severity: ProblemSeverity;
  readonly title: string;
  readonly evidence: Evidence[];
  readonly why: string;
  /** Shell commands, idempotent, effective now. */
  readonly runtime: string[];
  /** Shell commands, idempotent, that make the fix survive a reboot. */
  readonly persistent: string[];
  /** What a person must do (BIOS, GRUB, hypervisor, a placement decision), in words. */
  readonly manual?: string[];
  readonly changes?: Change[];
}

export function problem(rule: string, s: ProblemSpec): Problem {
  return {
    id: s.id,
    rule,
    severity: s.severity,
    title: s.title,
    evidence: s.evidence,
    why: s.why,
    fix: { runtime: s.runtime, persistent: s.persistent, manual: s.manual ?? [] },
    changes: s.changes ?? [],
  };
}

export function pass(rule: string, id: string, title: string, evidence: Evidence[] = [], why = ''): Passed {
  return { id, rule, severity: 'pass', title, evidence, why };
}

export function notChecked(
  rule: string,
  id: string,
  title: string,
  reason: string,
  evidence: Evidence[] = [],
): NotChecked {
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
  const node = nodeOfCpu(t).get(cpus[0]!) ?? null;
  if (node === null) return null;
  const own = t.nodes.find((n) => n.id === node)?.cpus;
  if (own === undefined) return null;
  // The node's CPUs as a set, made once per node (doctor asks for each of 256 sampled processes).
  let set = cpuSets.get(own);
  if (set === undefined) cpuSets.set(own, (set = new Set(own)));
  return cpus.every((c) => set.has(c)) ? node : null;
}

const cpuSets = new WeakMap<readonly CpuId[], ReadonlySet<CpuId>>();

export function nodeCpus(t: Topology, node: NodeId): CpuId[] {
  return t.nodes.find((n) => n.id === node)?.cpus ?? [];
}

export function onlineCpus(t: Topology): CpuId[] {
  return t.cpus.filter((c) => c.online).map((c) => c.id);
}

const nodeOfCpus = new WeakMap<Topology, ReadonlyMap<CpuId, NodeId>>();

/** The node each CPU belongs to (made once per topology: each NVMe's rule asks). */
export function nodeOfCpu(t: Topology): ReadonlyMap<CpuId, NodeId> {
  let m = nodeOfCpus.get(t);
  if (m === undefined) {
    const made = new Map<CpuId, NodeId>();
    for (const c of t.cpus) if (c.node !== null) made.set(c.id, c.node);
    nodeOfCpus.set(t, made);
    m = made;
  }
  return m;
}

/** A size as every numakit command prints it (binary units, model/bytes.ts). */
export function gib(bytes: number): string {
  return formatBytes(bytes);
}

export function pct(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}

export function sysctlPath(key: string): string {
  return `proc/sys/${key.replace(/\./g, '/')}`;
}

/** A file name for one knob's persistent file: sys/kernel/mm/transparent_hugepage/enabled -> transparent_hugepage-enabled. */
function knobName(path: string): string {
  return path
    .split('/')
    .filter((p) => p !== '')
    .slice(-2)
    .join('-')
    .replace(/[^\w.-]/g, '_');
}

/**
 * The commands of a fix, from its changes: each idempotent (a file is written whole, never
 * appended to) and in the order of the changes. `pathOf` says where a sysctl lives when it is
 * not under /proc/sys (the AutoNUMA scan knobs are in debugfs since 5.13).
 */
export function commandsFor(
  changes: readonly Change[],
  pathOf: (c: Change) => string | null = () => null,
): { runtime: string[]; persistent: string[] } {
  const runtime: string[] = [];
  const persistent: string[] = [];
  for (const c of changes) {
    const at = pathOf(c);
    if (c.kind === 'sysctl' && at === null) {
      runtime.push(`sysctl -w ${c.target}=${c.value}`);
      persistent.push(`echo '${c.target} = ${c.value}' > /etc/sysctl.d/90-numakit-${c.target}.conf`);
    } else if (c.kind === 'sysctl' || c.kind === 'sysfs') {
      const path = `/${at ?? c.target}`;
      runtime.push(`echo ${c.value} > ${path}`);
      persistent.push(`echo 'w ${path} - - - - ${c.value}' > /etc/tmpfiles.d/numakit-${knobName(path)}.conf`);
    } else if (c.kind === 'irq-affinity') {
      runtime.push(`echo ${c.value} > /proc/irq/${c.target}/smp_affinity_list`);
    } else if (c.kind === 'irqbalance-ban') {
      runtime.push(`# irqbalance: leave IRQs ${c.value} alone (numakit apply sends 'settings ban irqs' to its socket)`);
    } else {
      runtime.push(`systemctl ${c.value === 'stopped' ? 'stop' : 'start'} ${c.target}`);
      persistent.push(`systemctl ${c.value === 'stopped' ? 'disable' : 'enable'} ${c.target}`);
    }
  }
  return { runtime, persistent };
}

/** Changes in the apply engine's vocabulary (src/model/change.ts). */
export const change = {
  sysctl: (key: string, value: string | number, reason: string): Change => sysctl(key, value, reason),
  sysfs: (path: string, value: string | number, reason: string): Change => sysfs(path, value, reason),
  irq: (irq: number, cpus: string, device: string, reason: string): Change => ({
    kind: 'irq-affinity',
    target: irq,
    value: cpus,
    device,
    reason,
    subset: true,
  }),
  service: (unit: string, state: 'running' | 'stopped', reason: string): Change => ({
    kind: 'service',
    target: unit,
    value: state,
    reason,
  }),
};
