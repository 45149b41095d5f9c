// Read warnings: a file that exists but could not be used (unparseable, a directory where a
// file belongs, too large, a FIFO or device, a symlink loop). The reader turns the file into an
// absent fact and adds a warning here; the command goes on. Each warning is kept once (by
// path, line and problem) and announced once through `onNew` (main prints it on stderr);
// commands with --json carry `list()` as their "warnings" array. A daemon lives for months and
// meets files under /proc/PID of processes long gone: the log keeps the newest MAX_KEPT distinct
// warnings (a warning dropped from it is announced again if it comes back) and counts every
// distinct one it announced in `announced`. Pure.

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

/** How many distinct warnings a log keeps (the oldest goes first). */
export const MAX_KEPT = 4096;

export class Warnings {
  private readonly seen = new Map<string, ReadWarning>();
  private count = 0;
  constructor(
    private readonly onNew?: (w: ReadWarning) => void,
    private readonly maxKept = MAX_KEPT,
  ) {}

  add(w: ReadWarning): void {
    const key = `${w.path}\0${w.line}\0${w.problem}`;
    if (this.seen.has(key)) return;
    if (this.seen.size >= this.maxKept) this.seen.delete(this.seen.keys().next().value!);
    this.seen.set(key, w);
    this.count++;
    this.onNew?.(w);
  }

  /** How many distinct warnings are kept (at most the log's bound). */
  get size(): number {
    return this.seen.size;
  }

  /** How many times a warning was announced (each distinct one once while kept). */
  get announced(): number {
    return this.count;
  }

  list(): ReadWarning[] {
    return [...this.seen.values()];
  }

  /** One line each, as printed on stderr and carried in --json. */
  lines(): string[] {
    return this.list().map(formatWarning);
  }
}
