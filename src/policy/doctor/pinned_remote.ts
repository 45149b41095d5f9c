// Rule 16: processes pinned to one node (affinity or cgroup cpuset) whose memory is mostly on
// other nodes. AutoNUMA cannot move the threads to the memory (the cpuset forbids it; report 002
// pitfall 2), and with AutoNUMA off nothing moves the memory either.
import type { DoctorInput } from '../../model/doctor_input.js';
import { formatCpuList } from '../../model/cpuset.js';
import type { Finding } from '../../model/finding.js';
import { largeProcessBytes, type ProcessCoverage } from '../../model/large_process.js';
import { machineMemoryBytes } from '../../model/topology.js';
import { confinedNode, ev, gib, isMultiNode, pct, problem, singleNode } from './make.js';
import { coverageEvidence, coveredPass, partlyRead, processScope, type ProcessView } from './process_view.js';
import type { Rule } from './rule.js';

const ID = 'pinned-remote';
/** Large: 256 MiB, or 5% of a smaller machine's memory (model/large_process.ts). */
const MIN_BYTES = 256 * 2 ** 20;

function remoteShare(p: ProcessView, node: number): number {
  return p.totalBytes === 0 ? 0 : 1 - (p.bytesByNode[node] ?? 0) / p.totalBytes;
}

function finding(input: DoctorInput, p: ProcessView, node: number, c: ProcessCoverage): Finding {
  const others = Object.keys(p.bytesByNode)
    .map(Number)
    .filter((n) => n !== node && (p.bytesByNode[n] ?? 0) > 0);
  const by = p.cpusetCgroup !== null ? `cgroup cpuset ${p.cpusetCgroup}` : 'its CPU affinity';
  return problem(ID, {
    id: `${ID}/${p.pid}`,
    severity: 'warning',
    evidence: [
      ev(`proc/${p.pid}/status`, `Cpus_allowed_list ${formatCpuList(p.allowedCpus)} (node ${node})`),
      ev(
        `proc/${p.pid}/numa_maps`,
        Object.entries(p.bytesByNode)
          .map(([n, b]) => `node${n} ${gib(b)}`)
          .join(', '),
      ),
      ...(partlyRead(c) ? [coverageEvidence(c)] : []),
    ],
    title: `${p.comm}(${p.pid}) is held on node ${node} by ${by} but ${pct(remoteShare(p, node))} of its ${gib(p.totalBytes)} is on node ${others.join(',')}`,
    why:
      (input.topology.kernel.numaBalancing.value ?? 0) & 1
        ? 'AutoNUMA cannot move its threads to their memory (the pinning forbids it) and migrates pages slowly: accesses stay remote'
        : 'with AutoNUMA off nothing brings the memory back: every access to it stays remote',
    runtime: [`migratepages ${p.pid} ${others.join(',')} ${node}`],
    persistent: [],
    manual: [
      `the command moves its memory next to its CPUs; start it with its memory bound too: numakit run --cpunodebind=${node} --membind=${node} -- COMMAND (systemd: NUMAPolicy=bind NUMAMask=${node}), or loosen the cpuset so AutoNUMA can move it`,
    ],
  });
}

export const pinnedRemote: Rule = {
  id: ID,
  number: 16,
  title: 'processes pinned to one node with their memory elsewhere',
  check(input): Finding[] {
    if (!isMultiNode(input.topology)) return [singleNode(ID, 'pinned processes')];
    const scope = processScope(input, ID, 'pinned processes with remote memory');
    if (!scope.checked) return [scope.finding];
    const c = scope.coverage;
    const min = largeProcessBytes(MIN_BYTES, machineMemoryBytes(input.topology));
    const out: Finding[] = [];
    for (const p of scope.views) {
      const node = confinedNode(input.topology, p.allowedCpus);
      if (node !== null && p.totalBytes >= min && remoteShare(p, node) > 0.5) out.push(finding(input, p, node, c));
    }
    return out.length > 0
      ? out
      : [coveredPass(ID, `no pinned process of ${gib(min)} or more has most of its memory on another node`, c)];
  },
};
