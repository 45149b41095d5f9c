// numakit fleet report [--profile NAME] [--json | --markdown | --html] [--jobs N] DIR|FILE...
import { parseArgs } from 'node:util';
import { NumakitError, UsageError } from '../../model/errors.js';
import { PROFILE_NAMES, profileByName } from '../../policy/doctor/profiles.js';
import type { Command, Context } from '../context.js';

const usage = `usage: numakit fleet report [--profile NAME] [--json | --markdown | --html] [--jobs N] DIR|FILE...

Reads many hosts' snapshots (numakit snapshot HOST.tar.gz) and/or doctor reports
(numakit doctor --json > HOST.json), from FILEs or every such file under DIRs, and reports:
  - topology classes: hosts with the same nodes, CPUs per node and distances, and memory
    per node within 2%
  - findings x hosts: which hosts have which doctor finding, most serious first
  - settings that differ from the fleet's majority (THP, AutoNUMA, swappiness, KSM,
    governor, tuned, huge pages, kernel, NUMA arguments of the kernel command line ...)
  - hosts whose data is incomplete (a doctor report without a snapshot, rules not checked)
A host is named by its hostname (in the snapshot, or "host" in the doctor report), else by
its file name. A snapshot and a doctor report of one host are one host: the doctor report's
findings (taken live, with processes) win, the snapshot gives topology and settings.
Inputs that cannot be used (a corrupt archive, another schemaVersion, a second report of the
same host, an empty directory) are named in one line each on stderr; the rest is reported.

  --profile NAME   doctor profile for auditing snapshots (default general; doctor reports
                   keep the profile they were run with): ${PROFILE_NAMES.join(', ')}
  --json           machine-readable (schemaVersion 1, docs/fleet.md)
  --markdown       a report to paste into a ticket
  --html           one self-contained page, one sortable table per topology class
  --jobs N         worker threads reading archives (default: one per CPU)

Exit status: 0 when every input was used, 1 when some could not be (the report is still
printed), 2 for wrong options. See docs/fleet.md.
`;

function positiveInt(v: string | undefined, what: string): number | undefined {
  if (v === undefined) return undefined;
  if (!/^[1-9]\d*$/.test(v)) throw new UsageError(`fleet report: ${what} ${v}: expected a positive integer`);
  return Number(v);
}

async function report(args: string[], ctx: Context): Promise<number> {
  const { values, positionals } = parseArgs({
    args, strict: true, allowPositionals: true,
    options: { profile: { type: 'string' }, json: { type: 'boolean' }, markdown: { type: 'boolean' }, html: { type: 'boolean' }, jobs: { type: 'string' } },
  });
  if ([values.json, values.markdown, values.html].filter(Boolean).length > 1) throw new UsageError('fleet report: give one of --json, --markdown, --html');
  if (positionals.length === 0) throw new UsageError('fleet report: give the directories or files to read (snapshots .tar.gz, doctor --json .json)');
  if (ctx.rootGiven) throw new UsageError('fleet report: reads the files it is given; --root and --example do not apply');
  const profile = profileByName(values.profile ?? 'general').name;
  const [{ listFleetInputs }, { readHostParts, defaultJobs }, { mergeHostParts }, { buildFleetReport }] = await Promise.all([
    import('../../discover/fleet_inputs.js'), import('../../discover/fleet_pool.js'), import('../../policy/fleet/merge.js'), import('../../policy/fleet/report.js'),
  ]);
  const listed = listFleetInputs(positionals);
  const results = await readHostParts(listed.files, profile, positiveInt(values.jobs, '--jobs') ?? defaultJobs(listed.files.length));
  const unread = results.flatMap((r) => (r.ok ? [] : [{ input: r.file, message: r.message }]));
  const merged = mergeHostParts(results.flatMap((r) => (r.ok ? [r.part] : [])));
  const r = buildFleetReport(merged.records, [...listed.problems, ...unread, ...merged.problems]);
  for (const p of r.problems) ctx.err(`numakit: fleet: ${p.message}\n`);
  if (r.hosts.length === 0) throw new NumakitError(`fleet report: no host could be read from ${positionals.join(' ')}`);
  const render = values.json ? (await import('../../render/fleet_json.js')).renderFleetJson
    : values.markdown ? (await import('../../render/fleet_markdown.js')).renderFleetMarkdown
    : values.html ? (await import('../../render/fleet_html.js')).renderFleetHtml
    : (await import('../../render/fleet_text.js')).renderFleetText;
  ctx.out(render(r));
  return r.problems.length > 0 ? 1 : 0;
}

const fleet: Command = {
  summary: 'one report for many hosts: topology classes, findings x hosts, settings that differ',
  usage,
  async run(args, ctx) {
    if (args[0] !== 'report') throw new UsageError(`fleet: expected 'fleet report DIR|FILE...'${args[0] === undefined ? '' : ` (got '${args[0]}')`}`);
    return report(args.slice(1), ctx);
  },
};
export default fleet;
