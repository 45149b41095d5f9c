// Assertions that fail a lab test with the guest command's output shown (and the guest's
// console when the command never ran), so a red lab test says why without a re-run.
import { AssertionError } from 'node:assert';
import type { GuestResult } from './guest.js';
import type { SectionResult, SectionsRun } from './sections.js';

const TAIL_LINES = 40;

function tail(text: string, lines = TAIL_LINES): string {
  const all = text.trimEnd().split('\n');
  const cut = all.length > lines ? [`... (${all.length - lines} lines cut)`, ...all.slice(-lines)] : all;
  return cut.map((l) => `  | ${l}`).join('\n');
}

export function describeGuestFailure(
  what: string,
  r: { code: number | null; stdout: string; stderr: string },
  log?: string,
): string {
  const status = r.code === null ? 'never finished' : `exited ${r.code}`;
  const parts = [`${what} ${status}`, `stdout:\n${tail(r.stdout)}`, `stderr:\n${tail(r.stderr)}`];
  if (log !== undefined && r.code === null) parts.push(`guest console:\n${tail(log)}`);
  return parts.join('\n');
}

/** Fails unless the guest ran the command and it exited 0. */
export function assertGuestOk(r: GuestResult, what = 'guest command'): void {
  if (r.timedOut)
    throw new AssertionError({
      message: `${what} timed out after ${r.durationMs} ms\n${describeGuestFailure(what, r, r.log)}`,
    });
  if (r.code !== 0) throw new AssertionError({ message: describeGuestFailure(what, r, r.log) });
}

/** The named section's result, or a failure showing its output (and the console if it never ran). */
export function sectionOk(run: SectionsRun, name: string): SectionResult {
  const s = run.sections[name];
  if (!s) throw new AssertionError({ message: `no section '${name}' in this run` });
  if (run.guest.timedOut) {
    throw new AssertionError({
      message: `guest timed out after ${run.guest.durationMs} ms\n${describeGuestFailure(`section ${name}`, s, run.guest.log)}`,
    });
  }
  if (s.code !== 0) throw new AssertionError({ message: describeGuestFailure(`section ${name}`, s, run.guest.log) });
  return s;
}
