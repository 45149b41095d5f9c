// Rule 7: swapping. vm.swappiness above what database/latency profiles want; and swap in use
// while one node is nearly full and another has free memory (membind, cpuset.mems or
// zone_reclaim pushing one node into reclaim). The kernel keeps no per-node swap counter,
// so the pressure is read from the nodes' free memory.
import type { DoctorInput } from '../../model/doctor_input.js';
import type { Finding } from '../../model/finding.js';
import { wanted } from '../knowledge/resolve.js';
import { swappinessChanges } from '../tuning/memory.js';
import { absentReason, commandsFor, ev, evFact, gib, isMultiNode, notChecked, pass, pct, problem } from './make.js';
import type { Profile } from './profiles.js';
import type { Rule } from './rule.js';

const ID = 'swap';
const FULL_FREE = 0.1;
const ROOMY_FREE = 0.25;

function swappiness(input: DoctorInput, profile: Profile): Finding {
  const f = input.topology.kernel.swappiness;
  const want = wanted(profile, 'swappiness');
  if (f.value === null)
    return notChecked(ID, `${ID}/swappiness`, 'vm.swappiness', absentReason(f, 'a container hiding /proc/sys'));
  if (want === null || f.value <= want.value) {
    return pass(
      ID,
      `${ID}/swappiness`,
      `swappiness ${f.value}${want === null ? '' : ` (at most ${want.value} for ${profile.name})`}`,
      [evFact(f)],
    );
  }
  const changes = swappinessChanges(want);
  return problem(ID, {
    id: `${ID}/swappiness`,
    severity: 'warning',
    evidence: [evFact(f)],
    changes,
    ...commandsFor(changes),
    title: `swappiness is ${f.value}; the ${profile.name} profile wants at most ${want.value}`,
    why: want.reason,
  });
}

function freeShare(n: { memTotalBytes: number | null; memFreeBytes: number | null }): number | null {
  return n.memTotalBytes && n.memFreeBytes !== null ? n.memFreeBytes / n.memTotalBytes : null;
}

function nodePressure(input: DoctorInput): Finding {
  const s = input.swap;
  const t = input.topology;
  if (s.value === null)
    return notChecked(
      ID,
      `${ID}/node-pressure`,
      'swap use against node memory',
      absentReason(s, 'no /proc/meminfo, or no SwapTotal/SwapFree in it'),
    );
  const nodes = t.nodes.filter((n) => freeShare(n) !== null);
  const full = nodes.filter((n) => freeShare(n)! < FULL_FREE);
  const roomy = nodes.filter((n) => freeShare(n)! >= ROOMY_FREE);
  const evidence = [
    evFact(s, (v) => `${gib(v.usedBytes)} of ${gib(v.totalBytes)} swap used`),
    ...nodes.map((n) =>
      ev(
        `sys/devices/system/node/node${n.id}/meminfo`,
        `MemFree ${gib(n.memFreeBytes!)} of ${gib(n.memTotalBytes!)} (${pct(freeShare(n)!)})`,
      ),
    ),
  ];
  if (!isMultiNode(t) || s.value.usedBytes === 0 || full.length === 0 || roomy.length === 0) {
    return pass(
      ID,
      `${ID}/node-pressure`,
      s.value.usedBytes === 0 ? 'no swap in use' : 'swap in use, but no node is short while another has room',
      evidence,
    );
  }
  return problem(ID, {
    id: `${ID}/node-pressure`,
    severity: 'warning',
    evidence,
    title: `${gib(s.value.usedBytes)} swapped while node ${full.map((n) => n.id).join(',')} is nearly full and node ${roomy.map((n) => n.id).join(',')} has free memory`,
    why: 'a process bound to the full node (membind, cpuset.mems, zone_reclaim) swaps instead of using the other node: disk latency on memory accesses',
    runtime: [],
    persistent: [],
    manual: [
      'find the processes whose memory is bound to the full node: numakit stat --procs',
      'bind them with --preferred (or interleave) instead of --membind, or give them a node with room; vm.zone_reclaim_mode must be 0 (see zone-reclaim)',
    ],
  });
}

export const swap: Rule = {
  id: ID,
  number: 7,
  title: 'swappiness against the profile; swapping while another node has free memory',
  check: (input, profile) => [swappiness(input, profile), nodePressure(input)],
};
