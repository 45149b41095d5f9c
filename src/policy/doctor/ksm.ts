// Rule 8: KSM. ksmd merges identical pages; with merge_across_nodes=1 (the default) pages of
// different nodes become one, so some of their users read remote memory, and ksmd's scanning
// costs CPU. Documentation/admin-guide/mm/ksm.rst. Profiles that want it off (database,
// latency) get a warning and apply's changes; others hear about cross-node merging only.
import type { DoctorInput } from '../../model/doctor_input.js';
import type { Finding } from '../../model/finding.js';
import { wanted } from '../knowledge/resolve.js';
import { ksmChanges } from '../tuning/memory.js';
import { absentReason, commandsFor, evFact, isMultiNode, notChecked, pass, problem } from './make.js';
import type { Rule } from './rule.js';

const ID = 'ksm';

function daemons(input: DoctorInput): string[] {
  return input.comms.ok && input.comms.value['ksmtuned'] !== undefined ? ['ksmtuned'] : [];
}

export const ksm: Rule = {
  id: ID,
  number: 8,
  title: 'KSM merging pages (across nodes)',
  check(input, profile): Finding[] {
    const k = input.ksm;
    if (k.run.value === null) {
      // No ksm directory while THP's sysfs is there: a kernel built without CONFIG_KSM.
      if (k.run.absent === 'missing' && input.topology.kernel.thpEnabled.value !== null)
        return [pass(ID, ID, 'kernel has no KSM', [evFact(k.run)])];
      return [notChecked(ID, ID, 'KSM', absentReason(k.run, '/sys/kernel/mm not visible (container?)'))];
    }
    const evidence = [evFact(k.run), evFact(k.pagesSharing), evFact(k.mergeAcrossNodes)];
    if (k.run.value !== 1) return [pass(ID, ID, `KSM not running (run=${k.run.value})`, evidence)];
    const across = k.mergeAcrossNodes.value !== 0 && isMultiNode(input.topology);
    const ds = daemons(input);
    const want = wanted(profile, 'ksm');
    const title = `KSM is merging pages${across ? ' across nodes (merge_across_nodes=1)' : ''}${ds.length > 0 ? `, driven by ${ds.join(', ')}` : ''}`;
    const crossNode =
      'if KSM is wanted (VM hosts): stop it with run=2, set merge_across_nodes=0, then run=1, so pages merge within a node only';
    if (want === null) {
      if (!across) return [pass(ID, ID, `${title}; the ${profile.name} profile has no opinion on KSM`, evidence)];
      return [
        problem(ID, {
          id: ID,
          severity: 'info',
          evidence,
          title,
          runtime: [],
          persistent: [],
          manual: [crossNode, 'or turn it off: numakit apply --profile database does (KSM off)'],
          why: "a merged page lives on one node: every other node's user of it reads remote memory",
        }),
      ];
    }
    const changes = ksmChanges(want, ds.length > 0 ? { ksmtuned: 'running' } : {});
    return [
      problem(ID, {
        id: ID,
        severity: 'warning',
        evidence,
        changes,
        ...commandsFor(changes),
        manual: [crossNode],
        title: `${title}; the ${profile.name} profile wants it off`,
        why: want.reason,
      }),
    ];
  },
};
