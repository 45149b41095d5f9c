// Rule 18: offline CPUs, nodes with CPUs but no memory (every allocation of their CPUs is
// remote), and huge page pools reserved unevenly across the nodes that have memory.
import type { DoctorInput } from '../../model/doctor_input.js';
import { formatCpuList } from '../../model/cpuset.js';
import type { Finding } from '../../model/finding.js';
import { change, commandsFor, ev, pass, problem } from './make.js';
import type { Rule } from './rule.js';

const ID = 'node-health';
const NODE = 'sys/devices/system/node';
const UNEVEN = 0.8;

function offline(input: DoctorInput): Finding {
  const off = input.topology.cpus.filter((c) => !c.online).map((c) => c.id);
  if (off.length === 0)
    return pass(ID, `${ID}/offline-cpus`, 'all CPUs online', [ev('sys/devices/system/cpu/online', 'all')]);
  return problem(ID, {
    id: `${ID}/offline-cpus`,
    severity: 'warning',
    evidence: [ev('sys/devices/system/cpu/online', `missing ${formatCpuList(off)}`)],
    title: `${off.length} CPU(s) offline: ${formatCpuList(off)}`,
    why: 'their node has fewer CPUs than placements and per-node sizing assume; nodes may look smaller or CPU-less',
    runtime: off.map((c) => `echo 1 > /sys/devices/system/cpu/cpu${c}/online`),
    persistent: [],
    manual: ['remove maxcpus=/nr_cpus= from the kernel command line, or the unit that offlines them'],
    changes: off.map((c) => change.sysfs(`sys/devices/system/cpu/cpu${c}/online`, 1, `CPU ${c} online`)),
  });
}

function memoryless(input: DoctorInput): Finding {
  const nodes = input.topology.nodes.filter((n) => n.cpus.length > 0 && !n.hasMemory);
  if (nodes.length === 0) return pass(ID, `${ID}/memoryless`, 'every node with CPUs has memory');
  return problem(ID, {
    id: `${ID}/memoryless`,
    severity: 'warning',
    evidence: nodes.map((n) => ev(`${NODE}/has_memory`, `node ${n.id} absent (CPUs ${formatCpuList(n.cpus)})`)),
    title: `node ${nodes.map((n) => n.id).join(',')} has CPUs but no memory`,
    why: "every allocation by those CPUs is remote; usually DIMMs missing or failed on that socket's channels",
    runtime: [],
    persistent: [],
    manual: [
      'place memory-heavy work on the nodes with memory: numakit run --cpunodebind=N -- COMMAND',
      "populate every socket's memory channels (check the DIMM population and the BIOS event log)",
    ],
  });
}

function hugepages(input: DoctorInput): Finding[] {
  const nodes = input.topology.nodes.filter((n) => n.hasMemory && n.cpus.length > 0);
  const sizes = [...new Set(nodes.flatMap((n) => n.hugepages.map((p) => p.sizeKb)))];
  const out: Finding[] = [];
  for (const size of sizes) {
    const totals = nodes.map((n) => ({ id: n.id, total: n.hugepages.find((p) => p.sizeKb === size)?.total ?? 0 }));
    const max = Math.max(...totals.map((x) => x.total));
    const min = Math.min(...totals.map((x) => x.total));
    if (max === 0 || nodes.length < 2 || min / max >= UNEVEN) continue;
    const even = Math.round(totals.reduce((s, x) => s + x.total, 0) / totals.length);
    const file = (id: number) => `${NODE}/node${id}/hugepages/hugepages-${size}kB/nr_hugepages`;
    const changes = totals.map((x) => change.sysfs(file(x.id), even, `even ${size} kB huge pages per node`));
    out.push(
      problem(ID, {
        id: `${ID}/hugepages-${size}kB`,
        severity: 'warning',
        evidence: totals.map((x) => ev(file(x.id), x.total)),
        title: `${size} kB huge pages reserved unevenly: ${totals.map((x) => `node${x.id} ${x.total}`).join(', ')}`,
        why: 'a process bound to a node with few huge pages falls back to small pages or to remote huge pages',
        ...commandsFor(changes),
        changes,
      }),
    );
  }
  return out.length > 0 ? out : [pass(ID, `${ID}/hugepages`, 'huge page reservations even (or none)')];
}

export const nodeHealth: Rule = {
  id: ID,
  number: 18,
  title: 'offline CPUs, nodes without memory, uneven huge page reservations',
  check: (input) => [offline(input), memoryless(input), ...hugepages(input)],
};
