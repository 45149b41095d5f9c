// Global options: --root DIR|FILE.tar.gz, --example NAME, --no-color, --help, --version.
// They may stand anywhere before "--" (and, for raw-argument commands, before the command).
import { UsageError } from '../model/errors.js';

export interface Globals {
  root?: string;
  example?: string;
  noColor: boolean;
  help: boolean;
  version: boolean;
}

const WITH_VALUE = new Set(['--root', '--example']);

/** Splits argv into global options, the command name and the command's own arguments. */
export function splitGlobals(argv: string[], isRaw: (cmd: string) => boolean): { globals: Globals; command?: string; args: string[] } {
  const g: Globals = { noColor: false, help: false, version: false };
  const args: string[] = [];
  let command: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--' || (command !== undefined && isRaw(command))) {
      args.push(...argv.slice(i));
      break;
    }
    const [flag, inline] = a.startsWith('--') && a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    if (WITH_VALUE.has(flag)) {
      const v = inline ?? argv[++i];
      if (v === undefined || v === '') throw new UsageError(`${flag} needs a value`);
      if (flag === '--root') g.root = v;
      else g.example = v;
    } else if (a === '--no-color') g.noColor = true;
    else if (a === '--version' || (a === '-V' && command === undefined)) g.version = true;
    else if ((a === '--help' || a === '-h') && command === undefined) g.help = true;
    else if (command === undefined && !a.startsWith('-')) command = a;
    else args.push(a);
  }
  if (g.root !== undefined && g.example !== undefined) throw new UsageError('--root and --example cannot be used together');
  return { globals: g, command, args };
}
