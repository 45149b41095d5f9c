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
    super(`${who === '' ? '' : `${who}: `}unknown option '${option}'; see 'numakit ${who === '' ? '' : `${who} `}--help'`);
    this.name = 'UnknownOptionError';
  }
}

/** A kernel file exists but its content cannot be understood. Names the path, line and text. */
export class SysfsParseError extends SyntaxError {
  readonly path: string;
  readonly line: number;
  readonly text: string;
  constructor(what: string, where: { path?: string; line?: number; text?: string } = {}) {
    const path = where.path ?? '<text>';
    const line = where.line ?? 1;
    const text = where.text ?? '';
    super(`${path}:${line}: ${what}${text === '' ? '' : `: '${truncate(text)}'`}`);
    this.name = 'SysfsParseError';
    this.path = path;
    this.line = line;
    this.text = text;
  }

  /** The same error attributed to a file (parsers run on text and don't know the path). */
  at(path: string): SysfsParseError {
    const what = this.message.replace(/^<text>:\d+: /, '').replace(/: '.*'$/s, '');
    return new SysfsParseError(what, { path, line: this.line, text: this.text });
  }
}

function truncate(s: string): string {
  const one = s.replace(/\n/g, '\\n');
  return one.length > 60 ? `${one.slice(0, 57)}...` : one;
}
