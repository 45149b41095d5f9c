// The agent's journal stays bounded across restarts: each run of the agent is one change set
// (agent/journal.ts), and a host whose agent restarts daily would gather one file a day for
// ever. At start, holding the lock and after restoring what a dead predecessor left, the agent
// deletes its own finished sets (nothing left to put back: isAgentLeftover is false) beyond the
// newest KEEP_FINISHED_AGENT_SETS, which `numakit journal` still shows. A set with anything to
// restore, and every set of apply (rollback's history), is never touched, so restore stays exact.
import { unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { isRunning, journalDir, listChangeSets } from '../actuate/journal.js';
import { AGENT_SOURCE } from './journal.js';
import { isAgentLeftover } from './restore.js';

export const KEEP_FINISHED_AGENT_SETS = 8;

/** Deletes finished agent change sets but the newest `keep`; returns the ids deleted. */
export function rotateAgentSets(stateDir: string, keep = KEEP_FINISHED_AGENT_SETS): string[] {
  const finished = listChangeSets(stateDir).filter(
    (cs) => cs.source === AGENT_SOURCE && !isRunning(cs) && !isAgentLeftover(cs),
  );
  const old = finished.slice(0, Math.max(0, finished.length - keep));
  for (const cs of old) unlinkSync(join(journalDir(stateDir), `${cs.id}.json`));
  return old.map((cs) => cs.id);
}
