// numakit doctor [--profile P] [--json|--markdown] [-v] [--fail-on warning|critical] [--rules]
import { parseArgs } from 'node:util';
import { gatherDoctorInput } from '../../discover/doctor_input.js';
import { UsageError } from '../../model/errors.js';
import { atLeast, type ProblemSeverity } from '../../model/finding.js';
import { PROFILE_NAMES, PROFILES, profileByName } from '../../policy/doctor/profiles.js';
import { RULES, runDoctor } from '../../policy/doctor/rules.js';
import { renderDoctorJson } from '../../render/doctor_json.js';
import { renderDoctorMarkdown } from '../../render/doctor_markdown.js';
import { renderDoctorText } from '../../render/doctor_text.js';
import type { Command, Context } from '../context.js';

const usage = `usage: numakit doctor [--profile NAME] [--json | --markdown] [-v] [--fail-on LEVEL]

Audits this machine (or a snapshot/example) for every known NUMA pitfall: NUMA hidden by
firmware or numa=off, VMs without vNUMA, AutoNUMA and its scan rate, THP, zone_reclaim_mode,
swapping, KSM, irqbalance and IRQ placement, NVMe rq_affinity and RPS/RFS, devices without a
node, memory imbalance, numa_miss counters, processes far from their memory, pinned processes
with remote memory, memory-only nodes, offline CPUs and uneven huge pages, the CPU governor and
tuned. Each finding shows the file and value read, why it matters, the command that fixes it
now and what makes the fix persistent. A check that lacks its data says "not checked" and why.

  --profile NAME     the workload, which decides what is right (default general):
${PROFILE_NAMES.map((n) => `                       ${n.padEnd(11)} ${PROFILES[n].summary}`).join('\n')}
  --json             machine-readable (schemaVersion 1; each finding: id, rule, severity, title,
                     evidence [{path, value}], why, fix {runtime, persistent}, changes)
  --markdown         a report to paste into a ticket
  -v, --verbose      also list the checks that passed
  --fail-on LEVEL    exit 1 when a finding at or above LEVEL exists: warning | critical
                     (default critical); 0 otherwise
  --rules            list the rules and exit

Examples:
  numakit doctor --profile spark
  numakit --example spark-2s doctor --profile spark --fail-on warning
  numakit doctor --profile database --markdown > numa-report.md
`;

function target(ctx: Context): string {
  return ctx.root.isReal ? 'this machine' : ctx.root.label;
}

function failLevel(v: string | undefined): ProblemSeverity {
  if (v === undefined) return 'critical';
  if (v !== 'warning' && v !== 'critical') throw new UsageError(`doctor: --fail-on ${v}: expected warning or critical`);
  return v;
}

const doctor: Command = {
  summary: 'audit every NUMA pitfall, with evidence and the exact fix',
  usage,
  async run(args, ctx) {
    const { values } = parseArgs({
      args, strict: true, allowPositionals: false,
      options: { profile: { type: 'string' }, json: { type: 'boolean' }, markdown: { type: 'boolean' }, verbose: { type: 'boolean', short: 'v' }, 'fail-on': { type: 'string' }, rules: { type: 'boolean' } },
    });
    if (values.json && values.markdown) throw new UsageError('doctor: --json and --markdown cannot be used together');
    const profile = profileByName(values.profile ?? 'general');
    const fail = failLevel(values['fail-on']);
    if (values.rules) {
      ctx.out(RULES.map((r) => `${String(r.number).padStart(2)}  ${r.id.padEnd(18)} ${r.title}`).join('\n') + '\n');
      return 0;
    }
    const findings = runDoctor(await gatherDoctorInput(ctx.root), profile);
    const o = { profile: profile.name, target: target(ctx), verbose: values.verbose === true, color: ctx.color };
    ctx.out(values.json ? renderDoctorJson(findings, o) : values.markdown ? renderDoctorMarkdown(findings, o) : renderDoctorText(findings, o));
    return findings.some((f) => atLeast(f, fail)) ? 1 : 0;
  },
};
export default doctor;
