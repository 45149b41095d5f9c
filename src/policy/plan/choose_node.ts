// Which node a single-instance service should live on: the one with its NVMe and NICs (local
// I/O, field report 002), then the most memory, then the lowest id.
import { UsageError } from '../../model/errors.js';
import type { Derivation, MachineShare, NodeShare } from './types.js';

export function chooseNode(m: MachineShare, requested: number | undefined, d: Derivation[]): NodeShare {
  if (requested !== undefined) {
    const s = m.usable.find((u) => u.node === requested);
    if (s === undefined)
      throw new UsageError(
        `--node ${requested}: not a node with CPUs and memory on this machine (usable: ${m.usable.map((u) => u.node).join(', ')})`,
      );
    d.push({ what: 'node', formula: `--node ${requested}`, value: `${requested}` });
    return s;
  }
  const score = (s: NodeShare) => s.nvme.length + s.nics.length;
  const best = [...m.usable].sort((a, b) => score(b) - score(a) || b.memGiB - a.memGiB || a.node - b.node)[0];
  if (best === undefined) throw new UsageError('no NUMA node has both CPUs and memory; nothing to plan');
  const devs = [...best.nvme, ...best.nics].map((x) => x.name);
  d.push({
    what: 'node',
    formula:
      devs.length > 0
        ? `node ${best.node} holds ${devs.join(', ')} (local I/O)`
        : `no node holds the NVMe/NICs; node ${best.node} has the most memory`,
    value: `${best.node}`,
  });
  return best;
}

/**
 * The nodes a plan of one instance per node runs on: the first `instances` usable nodes, all of
 * them by default. Refused when no node has both CPUs and memory or more instances are asked for
 * than there are such nodes (`hint` says what to use instead).
 */
export function instanceNodes(
  m: MachineShare,
  o: { readonly workload: string; readonly instances: number | undefined; readonly hint?: string },
): NodeShare[] {
  if (m.usable.length === 0)
    throw new UsageError(`${o.workload}: no NUMA node has both CPUs and memory; nothing to plan`);
  if (o.instances !== undefined && o.instances > m.usable.length)
    throw new UsageError(
      `--instances ${o.instances}: more instances than NUMA nodes with CPUs and memory (${m.usable.length})${o.hint ?? ''}`,
    );
  return m.usable.slice(0, o.instances ?? m.usable.length);
}
