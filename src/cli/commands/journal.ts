// numakit journal [ID] [--json] [--state-dir DIR]
import { parseArgs } from 'node:util';
import { DEFAULT_STATE_DIR, isRunning, listChangeSets, loadChangeSet } from '../../actuate/journal.js';
import { renderChangeSet, renderJournal } from '../../render/changes.js';
import type { Command, Context } from '../context.js';

const usage = `usage: numakit journal [ID] [--json] [--state-dir DIR]

The change sets 'numakit apply --yes' and 'numakit agent' made: id, time, source, status
(applied, failed, rolled-back, interrupted: killed half way, roll it back), changes written
of planned (the agent's: its settings plus the threads whose CPU affinity it set), and how
many are undone. With ID: each change with its old and new value.

  --json           the journal records as JSON
  --state-dir DIR  journal directory (default ${DEFAULT_STATE_DIR})
`;

async function run(args: string[], ctx: Context): Promise<number> {
  const { values, positionals } = parseArgs({
    args, allowPositionals: true, strict: true,
    options: { json: { type: 'boolean' }, 'state-dir': { type: 'string' } },
  });
  const stateDir = values['state-dir'] ?? DEFAULT_STATE_DIR;
  if (positionals.length > 0) {
    const cs = loadChangeSet(stateDir, positionals[0]!);
    ctx.out(values.json ? `${JSON.stringify(cs, null, 2)}\n` : renderChangeSet(cs, isRunning(cs)));
    return 0;
  }
  const sets = listChangeSets(stateDir);
  ctx.out(values.json ? `${JSON.stringify(sets, null, 2)}\n` : renderJournal(sets, isRunning));
  return 0;
}

const cmd: Command = { summary: 'list the change sets apply and the agent made: time, source, status', usage, run };
export default cmd;
