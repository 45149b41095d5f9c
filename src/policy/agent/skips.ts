// Why the agent leaves a process (or a cgroup unit) alone, in one table: whether the skip is
// logged (once per process and reason: every small or idle process is silent), whether the
// process then cools down (--cooldown: its numa_maps is not read again for a while: nothing to
// gain now, or nothing it may do), and the log text of the skips whose text does not depend on
// the process (the others' texts are written where they are decided: place.ts, decide.ts,
// cgroup_unit.ts). Pure.
import type { SkipReason } from './types.js';

export interface SkipRule {
  /** Logged when a process first gets it. */
  readonly logged: boolean;
  /** The process is not looked at again for --cooldown. */
  readonly coolsDown: boolean;
  /** The log text, when it is the same for every process. */
  readonly text: string | null;
}

export const SKIPS: Readonly<Record<SkipReason, SkipRule>> = {
  'kernel-thread': { logged: false, coolsDown: false, text: 'a kernel thread' },
  init: { logged: false, coolsDown: false, text: 'init' },
  self: { logged: false, coolsDown: false, text: 'the agent itself' },
  small: { logged: false, coolsDown: false, text: 'under --min-rss' },
  idle: { logged: false, coolsDown: false, text: 'under --min-cpu' },
  excluded: { logged: true, coolsDown: false, text: 'matches --exclude' },
  'not-included': { logged: true, coolsDown: false, text: 'matches no --include' },
  'pinned-cpus': {
    logged: true,
    coolsDown: false,
    text: 'CPU affinity set by the user (use --override-pins to manage it)',
  },
  'pinned-memory': { logged: true, coolsDown: true, text: null },
  cooldown: { logged: false, coolsDown: false, text: 'cooling down after its last decision' },
  'no-permission': { logged: true, coolsDown: true, text: null },
  local: { logged: true, coolsDown: true, text: null },
  'low-gain': { logged: true, coolsDown: true, text: null },
  'cold-memory': { logged: true, coolsDown: true, text: null },
  'no-room': { logged: true, coolsDown: false, text: null },
  budget: { logged: true, coolsDown: false, text: null },
  'no-memory': { logged: true, coolsDown: false, text: null },
  'pinned-cgroup': { logged: true, coolsDown: false, text: null },
  young: { logged: false, coolsDown: false, text: 'younger than --min-age: judged again once it is that old' },
  confirming: { logged: true, coolsDown: false, text: null },
};

/** The log text of a skip: the reason decided with it (naming the process), else the table's. */
export function skipText(skip: SkipReason, decided?: string): string {
  return decided ?? SKIPS[skip].text ?? skip;
}
