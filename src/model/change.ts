// A change to the running system, and the journaled set of changes an apply made.
// Plain data: policies produce Change[], actuate writes them and journals the old values.

/** A sysctl by its dotted name (kernel.numa_balancing); written under /proc/sys. */
export interface SysctlChange {
  readonly kind: 'sysctl';
  readonly target: string;
  readonly value: string;
  readonly reason: string;
  /** Other values that are as good: found there, the knob is left alone ("already set"). */
  readonly accept?: readonly string[];
  /** Integers from the first to the second (inclusive) are as good too. */
  readonly acceptRange?: readonly [number, number];
}

/** A sysfs knob by its root-relative path (sys/kernel/mm/transparent_hugepage/enabled). */
export interface SysfsChange {
  readonly kind: 'sysfs';
  readonly target: string;
  readonly value: string;
  readonly reason: string;
  readonly accept?: readonly string[];
  /** For CPU masks (rps_cpus): any non-empty subset of the value's CPUs counts as set. */
  readonly subset?: boolean;
}

/** /proc/irq/N/smp_affinity_list: value is a CPU list ("0-15,32-47"). */
export interface IrqAffinityChange {
  readonly kind: 'irq-affinity';
  readonly target: number;
  readonly value: string;
  /** The device the IRQ belongs to, for messages (eth0, nvme0). */
  readonly device?: string;
  /** The device's PCI address (0000:3b:00.0): --persist finds its IRQs at boot by it, not by number. */
  readonly pci?: string;
  readonly reason: string;
  /** Any non-empty subset of the value's CPUs counts as set (an IRQ pinned to one CPU of the node). */
  readonly subset?: boolean;
}

/**
 * The IRQs a running irqbalance leaves alone (the banned set of its socket): value is the whole set,
 * IRQ numbers joined by commas ("none" for none). Steers irqbalance off IRQs numakit pins, instead of
 * stopping it; runtime only (irqbalance forgets it on restart: --persist writes its policy script).
 */
export interface IrqbalanceBanChange {
  readonly kind: 'irqbalance-ban';
  readonly target: 'irqbalance';
  readonly value: string;
  readonly reason: string;
}

/** An IRQ list as IrqbalanceBanChange holds it: "40,41", or "none". */
export function formatIrqList(irqs: readonly number[]): string {
  return irqs.length === 0 ? 'none' : [...new Set(irqs)].sort((a, b) => a - b).join(',');
}

/** "40,41" -> [40, 41]; "none" or "" -> []. */
export function parseIrqList(text: string): number[] {
  const t = text.trim();
  return t === '' || t === 'none' ? [] : t.split(',').map((s) => Number(s.trim()));
}

export type ServiceState = 'running' | 'stopped';

/** A systemd unit's runtime state (systemctl start/stop), not its enablement. */
export interface ServiceChange {
  readonly kind: 'service';
  readonly target: string;
  readonly value: ServiceState;
  readonly reason: string;
}

export type Change = SysctlChange | SysfsChange | IrqAffinityChange | ServiceChange | IrqbalanceBanChange;
export type ChangeKind = Change['kind'];

/** Root-relative file a change writes; null for services. The scan knobs may move (see actuate/targets). */
export function changePath(c: Change): string | null {
  switch (c.kind) {
    case 'sysctl':
      return `proc/sys/${c.target.replace(/\./g, '/')}`;
    case 'sysfs':
      return c.target;
    case 'irq-affinity':
      return `proc/irq/${c.target}/smp_affinity_list`;
    case 'service':
    case 'irqbalance-ban':
      return null;
  }
}

/** How a change is named to the user: "/proc/sys/vm/swappiness", "service irqbalance". */
export function changeLabel(c: Change, path: string | null = changePath(c)): string {
  if (c.kind === 'irqbalance-ban') return 'irqbalance banned IRQs';
  return path === null ? `service ${c.target}` : `/${path}`;
}

/** Same change target (the later one in a list wins). */
export function sameTarget(a: Change, b: Change): boolean {
  return a.kind === b.kind && String(a.target) === String(b.target);
}

/** Drops earlier changes of a target changed again later, keeping the order of the survivors. */
export function dedupeChanges(changes: readonly Change[]): Change[] {
  return changes.filter((c, i) => !changes.slice(i + 1).some((d) => sameTarget(c, d)));
}

/**
 * One journaled change: `old` is the file's exact content before the write (null when the
 * target did not exist), `restore` the value that writes it back (the bracketed word of a
 * selector file such as THP "always [madvise] never").
 */
export interface JournalEntry {
  readonly change: Change;
  /** Root-relative path actually written; null for services and irqbalance's banned IRQs. */
  readonly path: string | null;
  readonly old: string;
  readonly restore: string;
  /** writing: old value journaled, the write may have happened; written: read back equal; restored: undone. */
  readonly state: 'writing' | 'written' | 'restored';
}

export type ChangeSetStatus =
  | 'applying' // in progress, or killed half way (see pid)
  | 'applied'
  | 'failed' // a write failed and this apply rolled itself back
  | 'rolled-back'
  | 'rollback-incomplete';

/** A persistent file written by --persist: old content null when it did not exist. */
export interface PersistedFile {
  readonly path: string;
  readonly old: string | null;
  readonly state: 'writing' | 'written' | 'restored';
}

/**
 * The tuned profile `apply --persist /etc --yes` activated (tuned-adm profile) after writing it:
 * `old` the profiles active before ([] when tuned ran with none: a rollback then runs tuned-adm off).
 */
export interface TunedEntry {
  readonly profile: string;
  readonly old: readonly string[];
  readonly state: 'writing' | 'written' | 'restored';
}

/**
 * A thread's CPU affinity as `numakit agent` changed it: `old` is the affinity before the
 * agent's first change (a CPU list), `value` the agent's latest. `start` is the thread's
 * starttime (clock ticks since boot, /proc/PID/task/TID/stat field 22): a TID reused by
 * another thread after an exit has another start, and is never touched by a restore.
 */
export interface ThreadAffinityEntry {
  readonly pid: number;
  readonly tid: number;
  readonly start: number;
  readonly comm: string;
  readonly old: string;
  readonly value: string;
  readonly state: 'writing' | 'written' | 'restored';
}

/**
 * A paced page move by `numakit agent`, kept up to date while it runs (about once a second).
 * Memory is not put back by a restore (placement is not a setting), but how far a move got is
 * journaled, so that a restore after a SIGKILL and the next agent can say where the process's
 * memory is. `start` is the process's starttime (a reused pid is another process).
 */
export interface PageMoveEntry {
  readonly pid: number;
  readonly start: number;
  readonly comm: string;
  /** The cgroup placed as one unit (--unit cgroup), when the process was moved as part of one. */
  readonly cgroup?: string;
  readonly from: readonly number[];
  readonly to: readonly number[];
  readonly plannedBytes: number;
  readonly movedBytes: number;
  /** moving: in progress (or the agent died during it); interrupted: found so by a restore. */
  readonly state: 'moving' | 'done' | 'partial' | 'stopped' | 'full' | 'gone' | 'failed' | 'interrupted';
  /** ISO time of the last update. */
  readonly at: string;
}

export interface ChangeSet {
  readonly version: 1;
  readonly id: string;
  /** ISO time the apply started. */
  readonly time: string;
  /** What the changes came from: "profile database", "file tune.yaml", "doctor". */
  readonly source: string;
  readonly status: ChangeSetStatus;
  readonly pid: number;
  /** How many changes the apply meant to write (entries are added as each is journaled). */
  readonly planned: number;
  readonly entries: JournalEntry[];
  readonly files: PersistedFile[];
  /** The tuned profile activated with the persisted files (absent when none was). */
  readonly tuned?: TunedEntry;
  /** Thread affinities changed by `numakit agent` (absent in change sets of apply). */
  readonly threads?: ThreadAffinityEntry[];
  /** Page moves by `numakit agent`, the latest per process (absent in change sets of apply). */
  readonly moves?: PageMoveEntry[];
  /** Why the apply failed or the rollback was incomplete, in one line. */
  readonly error?: string;
  readonly rolledBackAt?: string;
}

/** Entries whose old value must be put back by a rollback (newest first). */
export function entriesToUndo(cs: ChangeSet): JournalEntry[] {
  return cs.entries.filter((e) => e.state === 'writing' || e.state === 'written').reverse();
}

/** Persisted files to remove or restore by a rollback (newest first). */
export function filesToUndo(cs: ChangeSet): PersistedFile[] {
  return cs.files.filter((f) => f.state !== 'restored').reverse();
}

/** Thread affinities the agent changed and has not put back. */
export function threadsToUndo(cs: ChangeSet): ThreadAffinityEntry[] {
  return (cs.threads ?? []).filter((t) => t.state !== 'restored');
}

/** True when a rollback of this set has something to do. */
export function needsUndo(cs: ChangeSet): boolean {
  return (
    entriesToUndo(cs).length > 0 ||
    filesToUndo(cs).length > 0 ||
    threadsToUndo(cs).length > 0 ||
    (cs.tuned !== undefined && cs.tuned.state !== 'restored')
  );
}

/** A change compared with the running value: what a dry run shows and an apply writes. */
export interface PlannedChange {
  readonly change: Change;
  /** Root-relative file that holds the value (resolved: the scan knobs live in debugfs on >= 5.13); null for services. */
  readonly path: string | null;
  /** The value now ("madvise" for "always [madvise] never"); null when the target is absent. */
  readonly current: string | null;
  /** change: will be written; same: already the desired value; absent: no such knob/IRQ/unit here, skipped. */
  readonly action: 'change' | 'same' | 'absent';
}
