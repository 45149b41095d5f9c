// jvm and elasticsearch: -XX:+UseNUMA -XX:+AlwaysPreTouch always; one instance per node bound
// to it when the heap fits a node (heap <= node memory x 0.85), else one instance with its
// memory interleaved over the CPU nodes (field report 001: a 48 GiB heap on 2 x 64 GiB nodes).
import { UsageError } from '../../model/errors.js';
import { num } from './machine.js';
import type { DecisionBase, Derivation, MachineShare } from './types.js';
import { planTuning } from './tuning.js';

export const HEAP_NODE_FRACTION = 0.85;

export interface JvmOptions {
  readonly flavour: 'jvm' | 'elasticsearch';
  readonly heapBytes: number;
  readonly instances?: number;
  readonly name: string;
  readonly java: string;
  readonly jar: string | null;
  readonly user: string;
  readonly dataDir: string;
}

export interface JvmInstance {
  readonly node: number;
  readonly cpuList: string;
  readonly index: number;
}

export interface JvmDecision extends DecisionBase {
  readonly kind: 'jvm';
  readonly options: JvmOptions;
  readonly heapGiB: number;
  readonly mode: 'per-node' | 'interleave';
  /** per-node: one per node; interleave: a single entry whose node is the first of the mask. */
  readonly instances: JvmInstance[];
  readonly mask: string;
}

const GiB = 1024 ** 3;

export function planJvm(m: MachineShare, o: JvmOptions): JvmDecision {
  const d: Derivation[] = [];
  const notes = [...m.notes];
  const heapGiB = o.heapBytes / GiB;
  const cpuMem = m.usable.reduce((a, s) => a + s.memGiB, 0);
  if (m.usable.length === 0) throw new UsageError(`${o.flavour}: no NUMA node has both CPUs and memory; nothing to plan`);
  if (heapGiB > cpuMem * 0.9) throw new UsageError(`--heap ${num(heapGiB)} GiB is larger than 90% of this machine's memory on CPU nodes (${num(cpuMem)} GiB)`);
  if (o.instances !== undefined && o.instances > m.usable.length) throw new UsageError(`--instances ${o.instances}: more instances than NUMA nodes with CPUs and memory (${m.usable.length})`);
  const smallest = Math.min(...m.usable.map((s) => s.memGiB));
  const limit = smallest * HEAP_NODE_FRACTION;
  const fits = heapGiB <= limit;
  d.push({ what: 'heap against a node', formula: `${num(heapGiB)} GiB ${fits ? '<=' : '>'} ${num(smallest)} GiB x ${HEAP_NODE_FRACTION} = ${num(limit)} GiB`, value: fits ? 'one instance per node' : 'interleave' });
  if (!fits && o.instances !== undefined && o.instances > 1) throw new UsageError(`--instances ${o.instances}: the heap does not fit one node, so the plan is one interleaved instance`);
  if (o.flavour === 'elasticsearch' && heapGiB > 31) notes.push('A heap above about 31 GiB turns compressed object pointers off; Elasticsearch recommends staying below that.');
  if (m.usable.length === 1) notes.push('This machine has one usable NUMA node: binding keeps everything local but there is no remote memory to avoid.');
  const nodes = fits ? m.usable.slice(0, o.instances ?? m.usable.length) : m.usable;
  const instances = fits ? nodes.map((s, index) => ({ node: s.node, cpuList: s.cpuList, index })) : [{ node: nodes[0]!.node, cpuList: '', index: 0 }];
  d.push({ what: 'instances', formula: fits ? `${o.instances === undefined ? 'one per node' : `--instances ${o.instances}`}: nodes ${nodes.map((s) => s.node).join(', ')}` : `one, interleaved over nodes ${nodes.map((s) => s.node).join(', ')}`, value: `${instances.length}` });
  return { kind: 'jvm', machine: m, tuning: planTuning('jvm', m), options: o, heapGiB, mode: fits ? 'per-node' : 'interleave', instances, mask: nodes.map((s) => s.node).join(','), derivations: d, notes };
}
