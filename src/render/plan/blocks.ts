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

/**
 * Each file removed, or the host's own put back; then the directories that are the plan's own
 * (a unit's drop-in directory, one named for NUMA) removed when left empty. A package's own
 * directory (postgresql's conf.d) stays: its server includes it.
 */
export function restoreLines(files: readonly PlanFile[]): string[] {
  const dirs = [...new Set(files.map((f) => f.path.slice(0, f.path.lastIndexOf('/'))))].filter((d) =>
    /\.service\.d$|numa/.test(d.slice(d.lastIndexOf('/') + 1)),
  );
  return [
    ...files.map(
      (f) =>
        `if [ -e ${f.path}${BACKUP_SUFFIX} ]; then mv -f ${f.path}${BACKUP_SUFFIX} ${f.path}; else rm -f ${f.path}; fi`,
    ),
    ...dirs.map((d) => `[ ! -d ${d} ] || rmdir --ignore-fail-on-non-empty ${d}`),
    'systemctl daemon-reload',
  ];
}

/** The blocks of a PLAN.md by name (each block's lines joined with newlines); pure. */
export function planBlocks(md: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of md.matchAll(/^```sh numakit:([a-z]+)\n([\s\S]*?)^```$/gm)) out.set(m[1]!, m[2]!.trimEnd());
  return out;
}
