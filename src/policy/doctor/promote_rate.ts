// Rule 22: kernel.numa_balancing_promote_rate_limit_MBps (6.1+), the most memory AutoNUMA
// promotes into a node each second in tiering mode, against the slower tier's bandwidth from
// HMAT. The default, 65536 MB/s, limits nothing: promotion may then take the slow memory's
// bandwidth from the application. Too small a limit leaves hot pages in the slow tier.
import type { Finding } from '../../model/finding.js';
import { formatResolved } from '../knowledge/labels.js';
import { promoteRateChanges, promoteRateRange } from '../tuning/memory.js';
import { absentReason, commandsFor, ev, evFact, notChecked, pass, problem, singleNode } from './make.js';
import type { Rule } from './rule.js';

const ID = 'promote-rate-limit';

export const promoteRate: Rule = {
  id: ID,
  number: 22,
  title: "the promotion rate limit against the slower tier's bandwidth",
  check(input, profile): Finding[] {
    if (input.topology.nodes.length <= 1) return [singleNode(ID, 'promotion rate limit')];
    const want = profile.wants.promoteRate;
    if (want === undefined) return [pass(ID, ID, `the ${profile.name} profile has no opinion on the promotion rate`)];
    if (want.state !== 'want') return [pass(ID, ID, `promotion rate limit: ${formatResolved('promoteRate', want)}`)];
    const f = input.topology.kernel.promoteRateLimitMBps;
    if (f === undefined || f.value === null)
      return [
        notChecked(
          ID,
          ID,
          'promotion rate limit',
          f === undefined ? 'not read' : absentReason(f, 'a kernel before 6.1 has no promotion rate limit'),
        ),
      ];
    const bw = profile.facts.slowTierBandwidthMBps!;
    const r = promoteRateRange(want.advice.value, bw);
    const evidence = [evFact(f), ev('slower tier bandwidth (HMAT, slowest node)', `${bw} MB/s`)];
    if (f.value >= r.low && f.value <= r.value)
      return [pass(ID, ID, `promotion limited to ${f.value} MB/s of a ${bw} MB/s slower tier`, evidence)];
    const changes = promoteRateChanges(want.advice, bw);
    const high = f.value > r.value;
    return [
      problem(ID, {
        id: ID,
        severity: 'warning',
        evidence,
        changes,
        ...commandsFor(changes),
        title: `promotion rate limit ${f.value} MB/s is ${high ? 'above' : 'below'} ${high ? `a tenth of the slower tier's ${bw} MB/s (${r.value})` : `${r.low} MB/s (of ${bw} MB/s)`}`,
        why: high
          ? `${want.advice.reason}; at ${f.value} MB/s nothing holds promotion back`
          : `hot pages wait in the slower tier: ${want.advice.reason}`,
      }),
    ];
  },
};
