// numakit fleet report [--profile NAME] [--json | --markdown | --html] [--jobs N] DIR|FILE...
import { NumakitError, UsageError } from '../../model/errors.js';
import { profileByName } from '../../policy/knowledge/profiles.js';
import { PROFILE_NAMES } from '../profile_help.js';
import type { Context } from '../context.js';
import type { Command, ParsedOptions, CommandModule } from '../options.js';

const OPTIONS = {
  profile: {
    type: 'string',
    value: 'NAME',
    choices: PROFILE_NAMES,
    complete: PROFILE_NAMES,
    help: 'doctor profile for auditing snapshots (default general; doctor reports keep\nthe profile they were run with)',
  },
  json: { type: 'boolean', help: 'machine-readable (schemaVersion 1, docs/fleet.md)' },
  markdown: { type: 'boolean', help: 'a report to paste into a ticket' },
  html: { type: 'boolean', help: 'one self-contained page, one sortable table per topology class' },
  jobs: { type: 'string', value: 'N', help: 'worker threads reading archives (default: one per CPU)' },
} as const;

function positiveInt(v: string | undefined, what: string): number | undefined {
  if (v === undefined) return undefined;
  if (!/^[1-9]\d*$/.test(v)) throw new UsageError(`fleet report: ${what} ${v}: expected a positive integer`);
  return Number(v);
}

async function runReport({ values, positionals }: ParsedOptions<typeof OPTIONS>, ctx: Context): Promise<number> {
  if (ctx.rootGiven)
    throw new UsageError('fleet report: reads the files it is given; --root and --example do not apply');
  const profile = profileByName(values.profile ?? 'general').klass;
  const jobs = positiveInt(values.jobs, '--jobs');
  const [{ listFleetInputs }, { readHostParts, defaultJobs }, { mergeHostParts }, { buildFleetReport }] =
    await Promise.all([
      import('../../fleet/inputs.js'),
      import('../../fleet/pool.js'),
      import('../../policy/fleet/merge.js'),
      import('../../policy/fleet/report.js'),
    ]);
  const listed = listFleetInputs(positionals);
  const results = await readHostParts(listed.files, profile, jobs ?? defaultJobs(listed.files.length));
  const unread = results.flatMap((r) => (r.ok ? [] : [{ input: r.file, message: r.message }]));
  const merged = mergeHostParts(results.flatMap((r) => (r.ok ? [r.part] : [])));
  const r = buildFleetReport(merged.records, [...listed.problems, ...unread, ...merged.problems]);
  for (const p of r.problems) ctx.err(`numakit: fleet: ${p.message}\n`);
  if (r.hosts.length === 0) throw new NumakitError(`fleet report: no host could be read from ${positionals.join(' ')}`);
  const render = values.json
    ? (await import('../../render/fleet_json.js')).renderFleetJson
    : values.markdown
      ? (await import('../../render/fleet_markdown.js')).renderFleetMarkdown
      : values.html
        ? (await import('../../render/fleet_html.js')).renderFleetHtml
        : (await import('../../render/fleet_text.js')).renderFleetText;
  ctx.out(render(r));
  return r.problems.length > 0 ? 1 : 0;
}

const report: Command<ParsedOptions<typeof OPTIONS>> = {
  summary: "one report for many hosts' snapshots and doctor reports",
  synopsis: ['[--profile NAME] [--json | --markdown | --html] [--jobs N] DIR|FILE...'],
  description: `Reads many hosts' snapshots (numakit snapshot HOST.tar.gz) and/or doctor reports
(numakit doctor --json > HOST.json), from FILEs or every such file under DIRs, and reports:
  - topology classes: hosts with the same nodes, CPUs per node and distances, and memory
    per node within 2%
  - findings x hosts: which hosts have which doctor finding, most serious first
  - settings that differ from the fleet's majority (THP, AutoNUMA, swappiness, KSM,
    governor, tuned, huge pages, kernel, NUMA arguments of the kernel command line ...)
  - hosts whose data is incomplete (a doctor report without a snapshot, missing settings)
A host is named by its hostname (in the snapshot, or "host" in the doctor report), else by
its file name. A snapshot and a doctor report of one host are one host: the doctor report's
findings (taken live, with processes) win, the snapshot gives topology and settings.
Inputs that cannot be used (a corrupt archive, another schemaVersion, a second report of the
same host, an empty directory) are named in one line each on stderr; the rest is reported.
See docs/fleet.md.`,
  options: OPTIONS,
  positionals: {
    name: 'DIR|FILE',
    min: 1,
    max: Infinity,
    complete: 'file',
    help: 'snapshots (.tar.gz), doctor --json files (.json), or directories holding them',
  },
  conflicts: [['json', 'markdown', 'html']],
  exit: { 1: 'some inputs could not be used (the report is still printed), or none could' },
  run: runReport,
};

const fleet: CommandModule<ParsedOptions<Record<string, never>>> = {
  synopsis: ['report [OPTIONS] DIR|FILE...'],
  description: 'Commands over many hosts. See docs/fleet.md.',
  options: {},
  subcommands: { report },
  async run() {
    throw new UsageError("fleet: expected 'numakit fleet report DIR|FILE...'");
  },
};
export default fleet;
