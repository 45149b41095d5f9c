// What acting commands need, checked before they change or print anything: a refusal names the
// privilege (root, a capability) and what it is for, and says that nothing was changed.
import type { JournalContents } from '../actuate/journal.js';
import { NumakitError } from '../model/errors.js';

/** Throws unless this process runs as root (uid 0). */
export function requireRoot(what: string, needs: string, uid: number | undefined = process.getuid?.()): void {
  if (uid === undefined || uid === 0) return;
  throw new NumakitError(`${what} needs root (uid 0; this is uid ${uid}): ${needs}; nothing was changed`);
}

/** The warning lines for corrupt journal files, found now or set aside before. */
export function corruptJournalLines(j: JournalContents, stateDir: string): string[] {
  const lines = j.corrupt.map(
    (c) =>
      `${c.path}: corrupt journal file (${c.reason}); skipped (the next apply, rollback or agent sets it aside in journal/corrupt/)`,
  );
  if (j.setAside.length > 0)
    lines.push(
      `${j.setAside.length} corrupt journal file(s) set aside in ${stateDir}/journal/corrupt/ (${j.setAside.join(', ')}): what they recorded cannot be undone by numakit; read them, then remove them`,
    );
  return lines;
}
