// numakit rollback [ID | --last | --all] [--dry-run] [--state-dir DIR]
import { isRunning, readJournal } from '../../actuate/journal.js';
import { rollback, selectForRollback, type UndoResult } from '../../actuate/rollback.js';
import { openSystem } from '../../actuate/system.js';
import { openSystemctl } from '../../actuate/systemctl.js';
import { openTuned } from '../../actuate/tuned_adm.js';
import { openIrqbalance } from '../../actuate/irqbalance_socket.js';
import { NumakitError, UsageError, NothingToDo } from '../../model/errors.js';
import { renderChangeSet } from '../../render/changes.js';
import { changeSetJson, renderChangeSetsJson } from '../../render/changes_json.js';
import { requireRealRoot } from '../../sysfs/root.js';
import type { Context } from '../context.js';
import { stateDirOf, stateDirOption } from '../state_dir_option.js';
import type { ParsedOptions, CommandModule } from '../options.js';
import { corruptJournalLines, requireRoot } from '../privileges.js';

const OPTIONS = {
  last: { type: 'boolean', help: 'the newest change set with something to undo (the default)' },
  all: { type: 'boolean', help: 'every change set with something to undo, newest first' },
  'dry-run': { type: 'boolean', help: 'show what would be restored, change nothing' },
  'state-dir': stateDirOption(),
  json: {
    type: 'boolean',
    help: 'what was (or with --dry-run would be) restored as one JSON object\n(schemaVersion 1, docs/json.md)',
  },
} as const;

async function run(parsed: ParsedOptions<typeof OPTIONS>, ctx: Context): Promise<number> {
  try {
    return await undo(parsed, ctx);
  } catch (e) {
    // An empty journal is not a failure: exit 0, as agent restore does.
    if (!(e instanceof NothingToDo)) throw e;
    ctx.out(
      parsed.values.json
        ? renderChangeSetsJson('changeSets', [], { dryRun: parsed.values['dry-run'] === true, note: e.message })
        : `${e.message}\n`,
    );
    return 0;
  }
}

type Which = { id: string | undefined; all: boolean };

async function undo({ values, positionals }: ParsedOptions<typeof OPTIONS>, ctx: Context): Promise<number> {
  if (positionals.length > 0 && (values.last === true || values.all === true))
    throw new UsageError('rollback: give one of ID, --last or --all');
  const stateDir = stateDirOf(values);
  const which: Which = { id: positionals[0], all: values.all === true };
  const warn = (line: string) => ctx.err(`numakit: warning: ${line}\n`);
  if (values['dry-run']) return dryRun(stateDir, which, values.json === true, ctx);
  requireRealRoot(ctx.root, 'rollback');
  requireRoot(
    'rollback',
    `it writes kernel knobs (/proc/sys, /sys, /proc/irq), starts units and updates the journal in ${stateDir}`,
  );
  const sys = openSystem(ctx.root, {
    services: openSystemctl(),
    tuned: openTuned(ctx.root),
    irqbalance: openIrqbalance(ctx.root),
  });
  const results = rollback(sys, { stateDir, ...which, log: (l) => values.json || ctx.out(`  ${l}\n`), warn });
  for (const r of results) {
    if (r.drifted.length > 0)
      ctx.err(`numakit: note: changed by someone else since the apply, restored anyway: ${r.drifted.join(', ')}\n`);
    if (!values.json)
      ctx.out(
        `change set ${r.changeSet.id} (${r.changeSet.source}): restored ${r.restored.length}, ${r.changeSet.status}\n`,
      );
  }
  if (values.json) ctx.out(resultsJson(results));
  throwIfIncomplete(results);
  return 0;
}

/** --dry-run: the change sets that would be undone, as apply printed them; nothing is written. */
function dryRun(stateDir: string, which: Which, json: boolean, ctx: Context): number {
  const j = readJournal(stateDir);
  for (const line of corruptJournalLines(j, stateDir)) ctx.err(`numakit: warning: ${line}\n`);
  const chosen = selectForRollback(j.sets, which);
  if (json)
    ctx.out(
      renderChangeSetsJson(
        'changeSets',
        chosen.map((cs) => changeSetJson(cs, isRunning(cs))),
        { dryRun: true },
      ),
    );
  else for (const cs of chosen) ctx.out(renderChangeSet(cs, isRunning(cs)));
  return 0;
}

function resultsJson(results: readonly UndoResult[]): string {
  return renderChangeSetsJson(
    'changeSets',
    results.map((r) => ({
      ...changeSetJson(r.changeSet, false),
      restored: r.restored.length,
      drifted: r.drifted,
      failures: r.failures,
    })),
    { dryRun: false },
  );
}

/** Exit 1 when a value is still changed, or when all are back but the journal could not say so. */
function throwIfIncomplete(results: readonly UndoResult[]): void {
  const failed = results.flatMap((r) => r.failures);
  if (failed.length > 0)
    throw new NumakitError(`rollback incomplete: still changed (${failed.length}): ${failed.join('; ')}`);
  const unrecorded = results.find((r) => r.journalError !== undefined);
  if (unrecorded !== undefined) {
    throw new NumakitError(
      `every value is back, but the journal could not record it (${unrecorded.journalError}): 'numakit journal' may still list change set ${unrecorded.changeSet.id} as not undone`,
    );
  }
}

const cmd: CommandModule<ParsedOptions<typeof OPTIONS>> = {
  synopsis: ['[ID | --last | --all] [--dry-run] [--state-dir DIR]'],
  description: `Puts back the old values that 'numakit apply --yes' journaled, newest change first, and
restores or removes the files its --persist wrote. Works after an apply that was killed
half way (even with SIGKILL): every value whose write may have happened is journaled first.
Needs root (except --dry-run). A corrupt journal file is named, moved to journal/corrupt/
and skipped: the other change sets are still undone.`,
  options: OPTIONS,
  positionals: { name: 'ID', help: 'that change set (see numakit journal)' },
  conflicts: [['last', 'all']],
  exit: {
    0: 'restored, or nothing to roll back (an empty journal, or every change set already undone)',
    1: 'something could not be restored: each value still changed is listed with its value now and its old value (the journal keeps it for another try)',
  },
  run,
};
export default cmd;
