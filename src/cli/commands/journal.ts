// numakit journal [ID] [--json] [--state-dir DIR]
import { isRunning, loadChangeSet, readJournal } from '../../actuate/journal.js';
import { renderChangeSet, renderJournal } from '../../render/changes.js';
import { changeSetJson, renderChangeSetsJson } from '../../render/changes_json.js';
import type { Context } from '../context.js';
import { stateDirOf, stateDirOption } from '../state_dir_option.js';
import type { ParsedOptions, CommandModule } from '../options.js';
import { corruptJournalLines } from '../privileges.js';

const OPTIONS = {
  json: {
    type: 'boolean',
    help: 'the journal records as JSON (schemaVersion 1, docs/json.md): {changeSets}\nor, with ID, {changeSet}',
  },
  'state-dir': stateDirOption(),
} as const;

async function run({ values, positionals }: ParsedOptions<typeof OPTIONS>, ctx: Context): Promise<number> {
  const stateDir = stateDirOf(values);
  if (positionals.length > 0) {
    const cs = loadChangeSet(stateDir, positionals[0]!);
    ctx.out(
      values.json
        ? renderChangeSetsJson('changeSet', changeSetJson(cs, isRunning(cs)))
        : renderChangeSet(cs, isRunning(cs)),
    );
    return 0;
  }
  const j = readJournal(stateDir);
  for (const line of corruptJournalLines(j, stateDir)) ctx.err(`numakit: warning: ${line}\n`);
  ctx.out(
    values.json
      ? renderChangeSetsJson(
          'changeSets',
          j.sets.map((cs) => changeSetJson(cs, isRunning(cs))),
        )
      : renderJournal(j.sets, isRunning),
  );
  return 0;
}

const cmd: CommandModule<ParsedOptions<typeof OPTIONS>> = {
  synopsis: ['[ID] [--json] [--state-dir DIR]'],
  description: `The change sets 'numakit apply --yes' and 'numakit agent' made: id, time, source, status
(applied, failed, rolled-back, interrupted: killed half way, roll it back), changes written
of planned (the agent's: its settings plus the threads whose CPU affinity it set), and how
many are undone. With ID: each change with its old and new value. A journal file that is
not a change set (cut short, edited) is named on stderr and skipped; apply, rollback and the
agent move it to journal/corrupt/.`,
  options: OPTIONS,
  positionals: { name: 'ID', help: 'show that change set, change by change' },
  run,
};
export default cmd;
