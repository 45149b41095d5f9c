// Rule 8: KSM. ksmd merges identical pages; with merge_across_nodes=1 (the default) pages of
// different nodes become one, so some of their users read remote memory, and ksmd's scanning
// costs CPU. Documentation/admin-guide/mm/ksm.rst.
import type { DoctorInput } from '../../model/doctor_input.js';
import type { Change } from '../../model/change.js';
import type { Finding } from '../../model/finding.js';
import { absentReason, change, evFact, isMultiNode, notChecked, pass, problem } from './make.js';
import type { Rule } from './rule.js';

const ID = 'ksm';
const RUN = 'sys/kernel/mm/ksm/run';

function daemons(input: DoctorInput): string[] {
  if (!input.comms.ok) return [];
  return ['ksmtuned'].filter((d) => (input.comms.ok ? input.comms.value[d] : undefined) !== undefined);
}

export const ksm: Rule = {
  id: ID, number: 8, title: 'KSM merging pages (across nodes)',
  check(input): Finding[] {
    const k = input.ksm;
    if (k.run.value === null) {
      // No ksm directory while THP's sysfs is there: a kernel built without CONFIG_KSM.
      if (k.run.absent === 'missing' && input.topology.kernel.thpEnabled.value !== null) return [pass(ID, ID, 'kernel has no KSM', [evFact(k.run)])];
      return [notChecked(ID, ID, 'KSM', absentReason(k.run, '/sys/kernel/mm not visible (container?)'))];
    }
    const evidence = [evFact(k.run), evFact(k.pagesSharing), evFact(k.mergeAcrossNodes)];
    if (k.run.value !== 1) return [pass(ID, ID, `KSM not running (run=${k.run.value})`, evidence)];
    const across = k.mergeAcrossNodes.value !== 0 && isMultiNode(input.topology);
    const ds = daemons(input);
    const changes: Change[] = [...ds.map((unit) => change.service(unit, 'stopped', 'ksmtuned restarts KSM')), change.sysfs(RUN, 2, 'KSM off, pages unmerged')];
    return [problem(ID, {
      id: ID, severity: across ? 'warning' : 'info', evidence, changes,
      title: `KSM is merging pages${across ? ' across nodes (merge_across_nodes=1)' : ''}${ds.length > 0 ? `, driven by ${ds.join(', ')}` : ''}`,
      why: across ? 'a merged page lives on one node: every other node\'s user of it reads remote memory, and ksmd burns CPU scanning' : 'ksmd burns CPU scanning and copy-on-write faults add latency',
      runtime: [...ds.map((d) => `systemctl disable --now ${d}`), `echo 2 > /${RUN}   # stop and unmerge`],
      persistent: ['systemctl disable ksm.service ksmtuned.service (where present)', 'if KSM is wanted (VM hosts): set merge_across_nodes to 0 while run is 2, then run=1, so pages merge within a node only'],
    })];
  },
};
