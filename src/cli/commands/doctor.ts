// numakit doctor [--profile P] [--placement bound|unpinned] [--json|--markdown] [-v] [--fail-on warning|critical] [--rules]
import { gatherDoctorInput } from '../../discover/doctor_input.js';
import { atLeast, type ProblemSeverity } from '../../model/finding.js';
import { doctorProfile } from '../../policy/doctor/profiles.js';
import { RULES, runDoctor } from '../../policy/doctor/rules.js';
import { parsePlacement } from '../../policy/knowledge/placement.js';
import { aliasNote, profileByName } from '../../policy/knowledge/profiles.js';
import { renderDoctorJson } from '../../render/doctor_json.js';
import { renderDoctorMarkdown } from '../../render/doctor_markdown.js';
import { renderDoctorText } from '../../render/doctor_text.js';
import { setV8Flags, v8FlagsForMachine } from '../../runtime/v8_flags.js';
import { readCpuList } from '../../sysfs/cpu_topology.js';
import { hostNameOf } from '../../sysfs/hostname.js';
import type { Context } from '../context.js';
import type { ParsedOptions, CommandModule } from '../options.js';
import { PLACEMENT_HELP, PROFILE_HELP, PROFILE_NAMES } from '../profile_help.js';
import { readWarnings } from '../warnings.js';

const DEFAULT_FAIL_ON: ProblemSeverity = 'critical';

const OPTIONS = {
  profile: {
    type: 'string',
    value: 'NAME',
    complete: PROFILE_NAMES,
    help: `the workload, which decides what is right (default general); the same\nnames as apply and plan:\n${PROFILE_HELP}`,
  },
  placement: { type: 'string', value: 'WHERE', choices: ['bound', 'unpinned'], help: PLACEMENT_HELP },
  json: {
    type: 'boolean',
    help: 'machine-readable (schemaVersion 1; host; placement; each finding: id, rule, severity,\ntitle, evidence [{path, value}], why, fix {runtime, persistent, manual}, changes)',
  },
  markdown: { type: 'boolean', help: 'a report to paste into a ticket' },
  verbose: { type: 'boolean', short: 'v', help: 'also list the checks that passed' },
  'fail-on': {
    type: 'string',
    value: 'LEVEL',
    choices: ['warning', 'critical'],
    help: `exit 1 when a finding at or above LEVEL exists: warning | critical\n(default ${DEFAULT_FAIL_ON}); 0 otherwise`,
  },
  rules: { type: 'boolean', help: 'list the rules and exit' },
} as const;

function target(ctx: Context): string {
  return ctx.root.isReal ? 'this machine' : ctx.root.label;
}

const doctor: CommandModule<ParsedOptions<typeof OPTIONS>> = {
  synopsis: ['[--profile NAME] [--placement bound|unpinned] [--json | --markdown] [-v] [--fail-on LEVEL]', '--rules'],
  description: `Audits this machine (or a snapshot/example) for every known NUMA pitfall: NUMA hidden by
firmware or numa=off, VMs without vNUMA, AutoNUMA and its scan rate, THP, zone_reclaim_mode,
swapping, KSM, irqbalance and IRQ placement, NVMe rq_affinity and RPS/RFS, devices without a
node, memory imbalance, numa_miss counters, processes far from their memory, pinned processes
with remote memory, memory-only nodes, offline CPUs and uneven huge pages, the CPU governor and
tuned. Each finding shows the file and value read, why it matters, the commands that fix it now
and make it persistent (idempotent, in order), and what needs a person. A check that lacks its
data says "not checked" and why. What each profile wants comes from one table, shared with
apply and plan (docs/profiles.md).`,
  options: OPTIONS,
  conflicts: [['json', 'markdown', 'rules']],
  sections: [
    {
      title: 'examples',
      body: `numakit doctor --profile spark
numakit --example spark-2s doctor --profile spark --fail-on warning
numakit doctor --profile database --placement bound --markdown > numa-report.md`,
    },
  ],
  exit: { 1: `a finding at or above --fail-on (default ${DEFAULT_FAIL_ON})` },
  async run({ values }, ctx) {
    const ref = profileByName(values.profile ?? 'general');
    const placement = parsePlacement(values.placement);
    const fail: ProblemSeverity = (values['fail-on'] as ProblemSeverity | undefined) ?? DEFAULT_FAIL_ON;
    if (values.rules) {
      ctx.out(RULES.map((r) => `${String(r.number).padStart(2)}  ${r.id.padEnd(18)} ${r.title}`).join('\n') + '\n');
      return 0;
    }
    const note = aliasNote(ref);
    if (note !== null) ctx.err(`numakit: note: ${note}\n`);
    // A large machine's doctor holds V8's young generation at its start size (runtime/v8_flags.ts).
    const flags = v8FlagsForMachine(readCpuList(ctx.root, 'possible')?.length ?? 0);
    if (flags.length > 0) setV8Flags(flags);
    const input = await gatherDoctorInput(ctx.root);
    const profile = doctorProfile(ref, input, placement);
    const findings = runDoctor(input, profile);
    const o = {
      profile: profile.name,
      placement: profile.placement.detail,
      target: target(ctx),
      host: hostNameOf(ctx.root),
      verbose: values.verbose === true,
      color: ctx.color,
    };
    ctx.out(
      values.json
        ? renderDoctorJson(findings, { ...o, warnings: readWarnings(ctx) })
        : values.markdown
          ? renderDoctorMarkdown(findings, o)
          : renderDoctorText(findings, o),
    );
    return findings.some((f) => atLeast(f, fail)) ? 1 : 0;
  },
};
export default doctor;
