// What both entries of the `numakit` executable share (main.ts for every command, run_main.ts
// for `numakit run`'s lean path): this process's stdout and stderr, the one line an error
// becomes with its exit status, how an outcome ends the process, and a command's Context.
import { NumakitError, SysfsParseError } from '../model/errors.js';
import { formatWarning, Warnings } from '../model/warnings.js';
import type { SysRoot } from '../sysfs/root.js';
import type { Context } from './context.js';
import { stdoutDirect, writeStdout } from './stdout.js';

export interface Io {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly isTTY: boolean;
}

/** This process's stdout and stderr, looked at when main() runs (not when the module loads: a startup snapshot is made elsewhere). */
export function processIo(): Io {
  const err = (t: string) => void process.stderr.write(t);
  if (stdoutDirect()) return { out: (t) => writeStdout(t), err, isTTY: false };
  return { out: (t) => void process.stdout.write(t), err, isTTY: process.stdout.isTTY === true };
}

/** A command's context on `root`; files that exist but cannot be used are each said once on stderr. */
export function contextOf(root: SysRoot, io: Io, o: { rootGiven: boolean; noColor: boolean }): Context {
  const warnings = new Warnings((w) => io.err(`numakit: warning: ${formatWarning(w)}\n`));
  return {
    root: { ...root, warnings },
    rootGiven: o.rootGiven,
    out: io.out,
    err: io.err,
    isTTY: io.isTTY,
    color: io.isTTY && !o.noColor && !process.env.NO_COLOR,
  };
}

/** One line for any error; a stack only with NUMAKIT_DEBUG=1. */
export function describeError(e: unknown): { message: string; code: number } {
  if (e instanceof NumakitError) return { message: e.message, code: e.exitCode };
  if (e instanceof SysfsParseError) return { message: `cannot parse ${e.message}`, code: 1 };
  const err = e as NodeJS.ErrnoException;
  if (err && typeof err.code === 'string' && typeof err.path === 'string') {
    return { message: `${err.path}: ${err.code === 'EACCES' ? 'permission denied' : err.message}`, code: 1 };
  }
  // A command that still calls parseArgs itself: its errors are usage errors too.
  if (err && typeof err.code === 'string' && err.code.startsWith('ERR_PARSE_ARGS'))
    return { message: err.message.split('. ')[0]!, code: 2 };
  return { message: `internal error: ${err?.message ?? String(e)} (NUMAKIT_DEBUG=1 shows where)`, code: 70 };
}

let promptly: ((code: number) => void) | null = null;

/**
 * For a daemon whose work is done and said once its command returns (the agent, after its
 * restore): the process ends then, with `end` (process.exit by default; the agent passes
 * native/exit_now.ts, which skips Node's teardown too), not once its event loop is empty,
 * which first tears V8's heap down (hundreds of milliseconds under emulation on a loaded host:
 * time a supervisor's stop waits). Nothing is lost: stdout and stderr are written synchronously
 * on Linux (files and pipes), and the command has closed what it opened.
 */
export function exitPromptly(end: (code: number) => void = (code) => process.exit(code)): void {
  promptly = end;
}

/** The process's end: the exit status main gave, or its error in one line (the stack under NUMAKIT_DEBUG=1). */
export function exitWith(start: () => Promise<number>): void {
  // EPIPE on stdout (numakit topo | head) is a normal end, not an error (writeStdout says the
  // same when output goes straight to fd 1, src/cli/stdout.ts).
  if (!stdoutDirect())
    process.stdout.on('error', (e: NodeJS.ErrnoException) => process.exit(e.code === 'EPIPE' ? 0 : 1));
  start().then(
    (code) => {
      process.exitCode = code;
      if (promptly) promptly(code);
    },
    (e: unknown) => {
      if (process.env.NUMAKIT_DEBUG) console.error(e);
      const { message, code } = describeError(e);
      process.stderr.write(`numakit: ${message}\n`);
      process.exitCode = code;
      if (promptly) promptly(code);
    },
  );
}
