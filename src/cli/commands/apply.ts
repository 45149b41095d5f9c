// numakit apply (--profile NAME | --from-doctor | FILE) [--dry-run | --yes] [--persist DIR] [--state-dir DIR]
import { basename } from 'node:path';
import { applyPlan, type PersistFile } from '../../actuate/apply.js';
import { isSystemConfigDir, persistFiles, tunedProfileIn, writePersistFiles } from '../../actuate/persist.js';
import { openSystem, type System } from '../../actuate/system.js';
import { openSystemctl } from '../../actuate/systemctl.js';
import { planChanges } from '../../actuate/targets.js';
import { openTuned } from '../../actuate/tuned_adm.js';
import { openIrqbalance } from '../../actuate/irqbalance_socket.js';
import { dedupeChanges, type Change, type ChangeSet, type PlannedChange } from '../../model/change.js';
import { UsageError } from '../../model/errors.js';
import { parsePlacement } from '../../policy/knowledge/placement.js';
import type { Placement } from '../../policy/knowledge/types.js';
import { renderApplied, renderPlan } from '../../render/changes.js';
import { renderApplyJson } from '../../render/changes_json.js';
import { renderPersistFiles } from '../../render/changes_persist.js';
import { requireRealRoot } from '../../sysfs/root.js';
import type { Context } from '../context.js';
import { stateDirOf, stateDirOption } from '../state_dir_option.js';
import type { ParsedOptions, CommandModule } from '../options.js';
import { requireRoot } from '../privileges.js';
import { PLACEMENT_HELP, PROFILE_HELP } from '../profile_help.js';
import { readNamedFile } from '../../runtime/named_file.js';

const SOURCES = 'sources (exactly one)';
const OPTIONS = {
  profile: {
    type: 'string',
    value: 'NAME',
    group: SOURCES,
    help: `a workload profile; the same names as doctor and plan:\n${PROFILE_HELP}`,
  },
  'from-doctor': { type: 'boolean', group: SOURCES, help: 'the fixes of the problems numakit doctor finds now' },
  'doctor-profile': {
    type: 'string',
    value: 'NAME',
    group: SOURCES,
    help: "with --from-doctor: doctor's profile (default general)",
  },
  'interleave-weights': {
    type: 'string',
    value: 'FROM',
    group: SOURCES,
    help: "weighted interleave's node weights (Linux 6.9+) in proportion to each\nnode's bandwidth: hmat (the firmware's read bandwidth) or FILE (a\nnumakit bench mem --json result: its measured matrix)",
  },
  placement: { type: 'string', value: 'WHERE', choices: ['bound', 'unpinned'], help: PLACEMENT_HELP },
  'dry-run': {
    type: 'boolean',
    help: 'the default, said on purpose: show what would change, change nothing\n(as rollback --dry-run); cannot go with --yes',
  },
  yes: {
    type: 'boolean',
    help: 'write (needs root). Before each write the old value is journaled\n(complete, fsynced); each write is read back; any failure (a write, a\nread-back, the journal itself) rolls back what this apply changed.',
  },
  persist: {
    type: 'string',
    value: 'DIR',
    complete: 'dir',
    help: 'also write the persistent form into DIR (laid out as /etc: a tuned\nprofile, systemd/system/, numakit/boot.txt with the GRUB arguments).\nDIR outside /etc is written at once for review; /etc only with --yes,\nwhich also activates the tuned profile when tuned runs (rollback restores\nthe profile active before).',
  },
  'state-dir': stateDirOption(),
  json: {
    type: 'boolean',
    help: 'the plan (and with --yes the change set written) as one JSON object\n(schemaVersion 1, docs/json.md)',
  },
} as const;

interface Source {
  readonly name: string;
  readonly label: string;
  /** The dry run's first words when they say more than the label (the placement of a profile). */
  readonly header?: string;
  readonly tunedBase?: string;
  readonly changes: Change[];
  /** What the profile leaves alone on this machine, and why (one line each). */
  readonly notes: string[];
}

async function loadSource(
  values: {
    profile?: string;
    'from-doctor'?: boolean;
    'doctor-profile'?: string;
    placement?: string;
    'interleave-weights'?: string;
  },
  file: string | undefined,
  sys: System,
  err: (t: string) => void,
): Promise<Source> {
  const weights = values['interleave-weights'];
  const given = [
    values.profile !== undefined,
    values['from-doctor'] === true,
    file !== undefined,
    weights !== undefined,
  ].filter(Boolean).length;
  if (values['doctor-profile'] !== undefined && values['from-doctor'] !== true)
    throw new UsageError('apply: --doctor-profile goes with --from-doctor');
  if (given !== 1)
    throw new UsageError(
      'apply: give exactly one of --profile NAME, --from-doctor, --interleave-weights FROM or FILE (profiles: general, spark, database, latency, throughput, jvm, memory-tiering)',
    );
  if (values.placement !== undefined && (file !== undefined || weights !== undefined))
    throw new UsageError('apply: --placement goes with --profile or --from-doctor');
  const placement = parsePlacement(values.placement);
  if (weights !== undefined) return (await import('./apply_weights.js')).interleaveWeightsSource(sys.root, weights);
  if (values.profile !== undefined) {
    const { profileSource } = await import('../profile_source.js');
    const src = profileSource(sys, values.profile, placement);
    if (src.aliasNote !== null) err(`numakit: note: ${src.aliasNote}\n`);
    return src;
  }
  if (file !== undefined) {
    const text = readNamedFile(file, { what: 'the change file' });
    // yaml and zod only for a change file: together about 65 ms of CPU to load, more than
    // the rest of `apply --profile`.
    const { parseChangeFile } = await import('../../policy/tuning/change_file.js');
    return {
      name: basename(file).replace(/\.[^.]*$/, ''),
      label: `file ${file}`,
      changes: parseChangeFile(text, file),
      notes: [],
    };
  }
  return doctorSource(sys, values['doctor-profile'] ?? 'general', placement);
}

/** The machine-readable fixes of the problems doctor finds now (loaded only for --from-doctor). */
async function doctorSource(sys: System, profileName: string, placement: Placement | undefined): Promise<Source> {
  const { gatherDoctorInput } = await import('../../discover/doctor_input.js');
  const { runDoctor } = await import('../../policy/doctor/rules.js');
  const { doctorProfile } = await import('../../policy/doctor/profiles.js');
  const { profileByName } = await import('../../policy/knowledge/profiles.js');
  const { isProblem } = await import('../../model/finding.js');
  const ref = profileByName(profileName, '--doctor-profile');
  const input = await gatherDoctorInput(sys.root);
  const findings = runDoctor(input, doctorProfile(ref, input, placement));
  const changes = findings.filter(isProblem).flatMap((f) => f.changes);
  return { name: `doctor-${ref.klass}`, label: `doctor findings (profile ${ref.klass})`, changes, notes: [] };
}

async function run({ values, positionals }: ParsedOptions<typeof OPTIONS>, ctx: Context): Promise<number> {
  const yes = values.yes === true;
  if (yes && values['dry-run'] === true)
    throw new UsageError('apply: --dry-run and --yes cannot be used together (--dry-run is the default; --yes writes)');
  // --json: one object at the end instead of the text as it goes.
  const say = values.json ? () => {} : ctx.out;
  const sys = openApplySystem(ctx, yes);
  const source = await loadSource(values, positionals[0], sys, ctx.err);
  const plan = planChanges(sys, dedupeChanges(source.changes));
  const { files, tunedProfile } = persistOf(values.persist, plan, source);
  const nothing = !plan.some((p) => p.action === 'change') && files.length === 0;
  const showPlan = (dryRun: boolean) =>
    say(renderPlan(plan, { source: source.header ?? source.label, dryRun, leftAlone: source.notes }));
  // With --yes the list of changes is printed once the journal holds the change set (not before a refusal).
  if (!yes || nothing) showPlan(!yes);
  if (!yes && files.length > 0) say(persistDryRun(values.persist!, files));
  const json = (changeSet?: ChangeSet) =>
    values.json &&
    ctx.out(
      renderApplyJson(plan, {
        source: source.label,
        dryRun: !yes,
        persist: files.map((f) => f.path),
        ...(changeSet ? { changeSet } : {}),
      }),
    );
  if (!yes || nothing) {
    if (yes) say('nothing to change; no change set recorded.\n');
    json();
    return 0;
  }
  const cs = applyPlan(sys, plan, {
    stateDir: stateDirOf(values),
    source: source.label,
    persist: files,
    ...(tunedProfile === undefined ? {} : { tunedProfile }),
    onStart: () => showPlan(false),
    log: (l) => say(`  ${l}\n`),
    warn: (l) => ctx.err(`numakit: warning: ${l}\n`),
  });
  say(renderApplied(cs, { stateDir: values['state-dir'] }));
  json(cs);
  return 0;
}

/** The system apply acts on; --yes needs root on the real machine. */
function openApplySystem(ctx: Context, yes: boolean): System {
  if (yes) {
    requireRealRoot(ctx.root, 'apply --yes');
    requireRoot(
      'apply --yes',
      'it writes kernel knobs (/proc/sys, /sys, /proc/irq), stops or starts units and journals the old values; run it without --yes for the dry run',
    );
  }
  return openSystem(ctx.root, {
    services: ctx.root.isReal ? openSystemctl() : null,
    tuned: yes && ctx.root.isReal ? openTuned(ctx.root) : null,
    irqbalance: ctx.root.isReal ? openIrqbalance(ctx.root) : null,
  });
}

/** --persist DIR: the files that make the plan last across reboots, and the tuned profile among them. */
function persistOf(
  dir: string | undefined,
  plan: PlannedChange[],
  source: Source,
): { files: PersistFile[]; tunedProfile: string | undefined } {
  if (dir === undefined) return { files: [], tunedProfile: undefined };
  const texts = renderPersistFiles(plan, { name: source.name, tunedBase: source.tunedBase });
  return { files: persistFiles(dir, texts), tunedProfile: tunedProfileIn(dir, texts) };
}

/**
 * The dry run's word on --persist: into a system directory (/etc ...) only with --yes; anywhere
 * else the files are written now, for review.
 */
function persistDryRun(dir: string, files: readonly PersistFile[]): string {
  const list = files.map((f) => `  ${f.path}`).join('\n');
  if (isSystemConfigDir(dir)) return `would write (add --yes to write into ${dir}):\n${list}\n`;
  writePersistFiles(files);
  return `wrote the persistent form for review:\n${list}\n`;
}

const apply: CommandModule<ParsedOptions<typeof OPTIONS>> = {
  synopsis: [
    '(--profile NAME [--placement bound|unpinned] | --from-doctor | FILE.yaml) [--dry-run | --yes] [--persist DIR] [--state-dir DIR]',
  ],
  description: `Tunes the running kernel for NUMA as one journaled change set. Dry run by default (or with
--dry-run, which says so on purpose; --yes writes): prints
each change as 'path: old -> new', what is already set, what this machine lacks, and what
the profile leaves alone here and why. What each profile wants comes from one table, shared
with doctor and plan (docs/profiles.md).
Undo with 'numakit rollback'; list change sets with 'numakit journal'. See docs/apply.md.`,
  options: OPTIONS,
  positionals: {
    name: 'FILE.yaml',
    complete: 'file',
    help: 'a change file: changes: [{kind: sysctl|sysfs|irq-affinity|service, target, value}]',
  },
  exit: { 1: 'a change could not be made (what this apply changed is rolled back)' },
  run,
};
export default apply;
