// Typed errors. Inside, parsers throw these; at the edge (src/cli/main.ts) every
// NumakitError becomes one line on stderr and an exit code, never a stack trace.

/** An error whose message is meant for the user as it is. */
export class NumakitError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 1) {
    super(message);
    this.name = 'NumakitError';
    this.exitCode = exitCode;
  }
}

/** Wrong options or arguments on the command line or in a config file. */
export class UsageError extends NumakitError {
  constructor(message: string) {
    super(message, 2);
    this.name = 'UsageError';
  }
}

/** Nothing to do (an empty journal for rollback or agent restore): said on stdout, exit 0. */
export class NothingToDo extends NumakitError {
  constructor(message: string) {
    super(message, 0);
    this.name = 'NothingToDo';
  }
}

/** An option the command does not have (exit 2). The help/parser test tells it from a bad value. */
export class UnknownOptionError extends UsageError {
  constructor(who: string, option: string) {
    super(
      `${who === '' ? '' : `${who}: `}unknown option '${option}'; see 'numakit ${who === '' ? '' : `${who} `}--help'`,
    );
    this.name = 'UnknownOptionError';
  }
}

/** A kernel file exists but its content cannot be understood. Names the path, line and text. */
export class SysfsParseError extends SyntaxError {
  readonly path: string;
  readonly line: number;
  readonly text: string;
  /** What was expected or wrong, without path and line ("not a CPU/node list: '0-x'"). */
  readonly problem: string;
  private readonly what: string;
  constructor(what: string, where: { path?: string; line?: number; text?: string } = {}) {
    const path = where.path ?? '<text>';
    const line = where.line ?? 1;
    const text = where.text ?? '';
    const problem = `${what}${text === '' ? '' : `: '${printable(text)}'`}`;
    super(`${path}:${line}: ${problem}`);
    this.name = 'SysfsParseError';
    this.path = path;
    this.line = line;
    this.text = text;
    this.problem = problem;
    this.what = what;
  }

  /** The same error attributed to a file (parsers run on text and don't know the path). */
  at(path: string): SysfsParseError {
    return new SysfsParseError(this.what, { path, line: this.line, text: this.text });
  }
}

function escapeChar(c: string): string {
  if (c === '\n') return '\\n';
  const code = c.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * At most 60 characters of the text, with newlines, control characters and non-ASCII bytes
 * escaped: a quoted file never moves the terminal's cursor or colours its screen.
 */
export function printable(s: string): string {
  const one = s.slice(0, 200).replace(/[^\x20-\x7e]/g, escapeChar);
  return one.length > 60 ? `${one.slice(0, 57)}...` : one;
}

/**
 * The line a long-running loop (a serve collector, an agent pass) logs when one of its parts
 * throws and it goes on: who failed and the error in one line, and its stack below that line
 * when `stack` is set (NUMAKIT_DEBUG=1; the caller reads the environment, this stays pure).
 */
export function failureLine(who: string, e: unknown, o: { stack: boolean }): string {
  const err = e instanceof Error ? e : null;
  const what = err === null ? String(e) : `${err.name}: ${err.message}`;
  const line = `${who} failed: ${what.split('\n')[0]}`;
  return o.stack && err?.stack !== undefined ? `${line}\n${err.stack}` : line;
}

/**
 * A spec that cannot be used: exit status 1 like numactl's "<spec> is invalid" when it names
 * ids this machine does not have or allow; 2 (`malformed`), a usage error like every other bad
 * argument, when it is not a node or CPU list at all ("0-x", "3-1", "1,,2").
 */
export class SpecError extends NumakitError {
  constructor(message: string, opts: { malformed?: boolean } = {}) {
    super(message, opts.malformed === true ? 2 : 1);
    this.name = 'SpecError';
  }
}
