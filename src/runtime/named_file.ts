// Files the user names on the command line (--config FILE, a change file, a bench result, a token
// file): one that cannot be read is the user's to fix, so it is one line naming the file and the
// system's reason (ENOENT, EACCES ...), never a stack trace.
import { readFileSync } from 'node:fs';
import { NumakitError } from '../model/errors.js';

/** The system's short code for a failed call (ENOENT, EACCES ...), else the error's message. */
export function reasonOf(e: unknown): string {
  return (e as NodeJS.ErrnoException).code ?? (e as Error).message;
}

export interface NamedFileOptions {
  /** How the message names the file: `--config FILE`; the path itself by default. */
  readonly label?: string;
  /** What the file was to be: "cannot read the change file". */
  readonly what?: string;
}

/** The text of `path`, or a NumakitError "LABEL: cannot read[ WHAT] (ENOENT)". */
export function readNamedFile(path: string, opts: NamedFileOptions = {}): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    const what = opts.what === undefined ? '' : ` ${opts.what}`;
    throw new NumakitError(`${opts.label ?? path}: cannot read${what} (${reasonOf(e)})`);
  }
}
