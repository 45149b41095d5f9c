// The exit statuses of every numakit command: one table, printed at the end of every --help,
// in the man page and in the README (a test keeps the README's copy equal to this one).
import type { Command } from './options.js';

export const EXIT = { ok: 0, failure: 1, usage: 2, internal: 70 } as const;

export const EXIT_TABLE: Readonly<Record<number, string>> = {
  0: 'success',
  1: 'findings or failure: the command did not do all it was asked (see its --help)',
  2: 'usage error: an unknown, contradictory or badly formed option or argument',
  70: 'internal error: a bug in numakit (NUMAKIT_DEBUG=1 shows where)',
};

/** The table as this command uses it: its own meanings (run: 126, 127) over the common ones. */
export function exitTable(cmd: Pick<Command, 'exit'>): [number, string][] {
  const all = { ...EXIT_TABLE, ...cmd.exit };
  return Object.entries(all)
    .map(([k, v]) => [Number(k), v] as [number, string])
    .sort((a, b) => a[0] - b[0]);
}
