// Global options: --root DIR|FILE.tar.gz, --example NAME, --no-color, -h/--help, -V/--version.
// --root, --example and --no-color may stand anywhere before "--" (for a raw-argument command
// such as run, only before its name); -h and -V are global only before the command (after it,
// -h is the command's --help and -V may be the command's own option, numastat's -V).
import { UsageError } from '../model/errors.js';
import type { OptionTable } from './options.js';

export interface Globals {
  root?: string;
  example?: string;
  noColor: boolean;
  help: boolean;
  version: boolean;
}

/** The global options' declaration: the top-level --help, the man page and completion read it. */
export const GLOBAL_OPTIONS: OptionTable = {
  root: {
    type: 'string',
    value: 'DIR|FILE.tar.gz',
    complete: 'file',
    help: 'read a snapshot (numakit snapshot) instead of this machine; never acted on',
  },
  example: {
    type: 'string',
    value: 'NAME',
    complete: 'example',
    help: 'read a shipped example machine (numakit examples lists them)',
  },
  'no-color': { type: 'boolean', help: 'no colours (also NO_COLOR=1)' },
  version: { type: 'boolean', short: 'V', help: 'print the version and exit' },
  help: { type: 'boolean', short: 'h', help: 'this text; numakit COMMAND --help for a command' },
};

const WITH_VALUE = new Set(['--root', '--example']);

/** Splits argv into global options, the command name and the command's own arguments. */
export function splitGlobals(
  argv: string[],
  isRaw: (cmd: string) => boolean,
): { globals: Globals; command?: string; args: string[] } {
  const g: Globals = { noColor: false, help: false, version: false };
  const args: string[] = [];
  let command: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--' || (command !== undefined && isRaw(command))) {
      args.push(...argv.slice(i));
      break;
    }
    const [flag, inline] =
      a.startsWith('--') && a.includes('=')
        ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]
        : [a, undefined];
    if (WITH_VALUE.has(flag)) {
      const v = inline ?? argv[++i];
      if (v === undefined || v === '') throw new UsageError(`${flag} needs a value`);
      if (flag === '--root') g.root = v;
      else g.example = v;
    } else if (a === '--no-color') g.noColor = true;
    else if ((a === '--version' || a === '-V') && command === undefined) g.version = true;
    else if ((a === '--help' || a === '-h') && command === undefined) g.help = true;
    else if (command === undefined && !a.startsWith('-')) command = a;
    else args.push(a);
  }
  if (g.root !== undefined && g.example !== undefined)
    throw new UsageError('--root and --example cannot be used together');
  return { globals: g, command, args };
}
