// What `numakit doctor` reports: one Finding per thing a rule looked at. Pure data.
//
// A Finding is a union on `severity`:
//   - 'critical' | 'warning' | 'info': a Problem, with the evidence read, why it matters, and
//     the fix: `fix.runtime` (exact shell commands, effective now, lost at reboot),
//     `fix.persistent` (shell commands writing sysctl.d, tmpfiles.d and udev files, disabling
//     units: what makes the fix survive a reboot) and `fix.manual` (what a person must do: BIOS,
//     GRUB, the hypervisor host, choosing a placement). The commands are idempotent and work
//     pasted top to bottom, runtime first (test/unit/doctor/fix_commands.test.ts runs them).
//   - 'pass': the rule looked and found nothing wrong; evidence says what it read.
//   - 'not-checked': the rule lacked the data it needs; `reason` says why (container,
//     old kernel, non-root, file absent). Never a silent OK.
//
// Machine-readable fixes (for `numakit apply --from-doctor`): a Problem's `changes` is its
// runtime fix as data, in the apply engine's own vocabulary (src/model/change.ts): sysctl
// (dotted key), sysfs (root-relative path), irq-affinity (IRQ number, CPU list) and service
// (unit, 'running' | 'stopped'), each with a reason. apply journals and can undo each one; the
// persistent form (sysctl.d line, tmpfiles.d/udev line, disabling a unit) follows from the kind.
// A Problem whose fix needs a person (BIOS, the hypervisor host, a reboot with a GRUB argument,
// choosing a process placement) has `changes: []`: its text fix says what to do.
import type { Change } from './change.js';

export type Severity = 'critical' | 'warning' | 'info' | 'pass' | 'not-checked';
export type ProblemSeverity = 'critical' | 'warning' | 'info';

/** Severities from most to least serious; 'pass' and 'not-checked' rank below every problem. */
export const SEVERITY_ORDER: readonly Severity[] = ['critical', 'warning', 'info', 'not-checked', 'pass'];

export interface Evidence {
  /** The file read, root-relative ("proc/sys/vm/zone_reclaim_mode"), or a derived source ("node list"). */
  readonly path: string;
  /** The value read, as text. */
  readonly value: string;
}

export interface Fix {
  readonly runtime: string[];
  readonly persistent: string[];
  readonly manual: string[];
}

interface FindingBase {
  /** Stable id of this kind of finding: "<rule>" or "<rule>/<aspect>" ("thp/defrag"). */
  readonly id: string;
  /** The rule that produced it (see src/policy/doctor/rules.ts). */
  readonly rule: string;
  readonly title: string;
  readonly evidence: Evidence[];
  /** Why it matters, one line. */
  readonly why: string;
}

export interface Problem extends FindingBase {
  readonly severity: ProblemSeverity;
  readonly fix: Fix;
  readonly changes: Change[];
}

export interface Passed extends FindingBase {
  readonly severity: 'pass';
}

export interface NotChecked extends FindingBase {
  readonly severity: 'not-checked';
  /** Why the rule could not look: which data was missing and the likely cause. */
  readonly reason: string;
}

export type Finding = Problem | Passed | NotChecked;

export function isProblem(f: Finding): f is Problem {
  return f.severity === 'critical' || f.severity === 'warning' || f.severity === 'info';
}

export function severityRank(s: Severity): number {
  return SEVERITY_ORDER.indexOf(s);
}

/** True when the finding is at or above `level` (critical >= warning >= info). */
export function atLeast(f: Finding, level: ProblemSeverity): boolean {
  return isProblem(f) && severityRank(f.severity) <= severityRank(level);
}

/**
 * Rule names and ids made of lowercase ASCII letters, digits, '-' and '/' sort the same by code
 * unit as by localeCompare (the root collation puts '-' < '/' < digits < letters, all primary
 * differences); comparing them directly spares every command that sorts findings the ICU
 * collator's start-up (about 6 ms of CPU). Any other string is compared by localeCompare.
 */
const PLAIN = /^[a-z0-9/-]*$/;

export function compareNames(a: string, b: string): number {
  if (PLAIN.test(a) && PLAIN.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  return a.localeCompare(b);
}

/** Findings sorted by severity, then rule, then id; stable otherwise. */
export function sortFindings(findings: readonly Finding[]): Finding[] {
  return [...findings].sort(
    (a, b) =>
      severityRank(a.severity) - severityRank(b.severity) || compareNames(a.rule, b.rule) || compareNames(a.id, b.id),
  );
}
