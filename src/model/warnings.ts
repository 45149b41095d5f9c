// Read warnings: a file that exists but could not be used (unparseable, a directory where a
// file belongs, too large, a FIFO or device, a symlink loop). The reader turns the file into an
// absent fact and adds a warning here; the command goes on. Each warning is kept once (by
// path, line and problem) and announced once through `onNew` (main prints it on stderr);
// commands with --json carry `list()` as their "warnings" array. Pure.

export interface ReadWarning {
  /** Root-relative path of the file ("sys/devices/system/node/has_cpu"). */
  readonly path: string;
  /** 1-based line, or null when the problem is the file itself (a directory, too large). */
  readonly line: number | null;
  /** What was wrong: "not a CPU/node list: '0-x'", "a directory, not a file". */
  readonly problem: string;
}

export function formatWarning(w: ReadWarning): string {
  return `/${w.path}${w.line === null ? '' : `:${w.line}`}: ${w.problem} (ignored)`;
}

export class Warnings {
  private readonly seen = new Map<string, ReadWarning>();
  constructor(private readonly onNew?: (w: ReadWarning) => void) {}

  add(w: ReadWarning): void {
    const key = `${w.path}\0${w.line}\0${w.problem}`;
    if (this.seen.has(key)) return;
    this.seen.set(key, w);
    this.onNew?.(w);
  }

  /** How many distinct warnings so far. */
  get size(): number {
    return this.seen.size;
  }

  list(): ReadWarning[] {
    return [...this.seen.values()];
  }

  /** One line each, as printed on stderr and carried in --json. */
  lines(): string[] {
    return this.list().map(formatWarning);
  }
}
