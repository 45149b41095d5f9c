// PLAN.md's commands as fenced blocks a program can run, not prose to retype: each block is
// "```sh numakit:NAME" ... "```", its lines run as root from the --out directory with bash -e
// (`sed -n '/^```sh numakit:install$/,/^```$/{//!p}' PLAN.md | bash -e`). install and rollback are
// made from the files the plan writes; start and check from what the workload's renderer says.
import type { PlanFile } from '../../policy/plan/types.js';

export const PLAN_BLOCKS = ['install', 'start', 'check', 'rollback'] as const;
export type PlanBlock = (typeof PLAN_BLOCKS)[number];

/** The suffix install's --backup gives a file the plan replaces; rollback puts it back. */
export const BACKUP_SUFFIX = '.numakit-orig';

const mode = (f: PlanFile) => f.mode.toString(8).padStart(4, '0');

export function fenced(name: PlanBlock, lines: readonly string[]): string[] {
  return [`\`\`\`sh numakit:${name}`, ...lines, '```'];
}

/** Each file installed from the --out directory; one the host already has is kept as FILE.numakit-orig. */
export function installLines(files: readonly PlanFile[]): string[] {
  return [
    ...files.map((f) => `install -D -b -S ${BACKUP_SUFFIX} -m ${mode(f)} .${f.path} ${f.path}`),
    'systemctl daemon-reload',
  ];
}

/** A directory the plan made its own: a unit's drop-in directory, one named for NUMA. */
const ownDir = (name: string) => /\.service\.d$|numa/.test(name);

/**
 * The directories of these files that are the plan's own, deepest first: one whose name is its
 * own (the deepest such), and every directory below it (/opt/numa-java/bin as well as
 * /opt/numa-java).
 */
export function ownDirs(files: readonly PlanFile[]): string[] {
  const dirs = new Set<string>();
  for (const f of files) {
    const parts = f.path.split('/').slice(0, -1);
    let first = parts.length - 1;
    while (first > 0 && !ownDir(parts[first]!)) first--;
    if (first <= 0) continue;
    for (let i = parts.length; i > first; i--) dirs.add(parts.slice(0, i).join('/'));
  }
  return [...dirs].sort((a, b) => b.split('/').length - a.split('/').length);
}

/**
 * The start block's line for units the plan's files define: started and enabled without the
 * reload systemctl does by itself after enabling, since the install block ends with one that
 * loaded them (a reload costs seconds on a busy host; the new wants links are read at the next
 * boot or reload, and \`systemctl is-enabled\` reads them from disk).
 */
export const enableNow = (units: string) => `systemctl enable --now --no-reload ${units}`;

/**
 * The roll back's first line for units a plan enabled: stopped and disabled without the reload
 * systemctl does by itself, since the block ends with one (restoreLines), after the files are gone.
 */
export const disableNow = (units: string) => `systemctl disable --now --no-reload ${units}`;

/**
 * Each file removed, or the host's own put back; then the directories that are the plan's own
 * (ownDirs) removed when left empty. A package's own directory (postgresql's conf.d) stays: its
 * server includes it.
 */
export function restoreLines(files: readonly PlanFile[]): string[] {
  return [
    ...files.map(
      (f) =>
        `if [ -e ${f.path}${BACKUP_SUFFIX} ]; then mv -f ${f.path}${BACKUP_SUFFIX} ${f.path}; else rm -f ${f.path}; fi`,
    ),
    ...ownDirs(files).map((d) => `[ ! -d ${d} ] || rmdir --ignore-fail-on-non-empty ${d}`),
    'systemctl daemon-reload',
  ];
}

/** The blocks of a PLAN.md by name (each block's lines joined with newlines); pure. */
export function planBlocks(md: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of md.matchAll(/^```sh numakit:([a-z]+)\n([\s\S]*?)^```$/gm)) out.set(m[1]!, m[2]!.trimEnd());
  return out;
}
