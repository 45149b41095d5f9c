// numakit entry point: parse global options, open the root, run one command, and turn every
// error into one line on stderr. The only top-level catch in the program.
import { NumakitError, SysfsParseError, UsageError } from '../model/errors.js';
import { openRoot, REAL_ROOT, type SysRoot } from '../sysfs/root.js';
import { COMMANDS, type CommandEntry } from './commands/index.js';
import type { Context } from './context.js';
import { splitGlobals, type Globals } from './globals.js';

const VERSION = '0.1.0';

function usage(): string {
  const names = Object.keys(COMMANDS);
  const w = Math.max(...names.map((n) => n.length));
  return [
    'usage: numakit [--root DIR|--example NAME] [COMMAND] [options]',
    '',
    'With no command: an overview of this machine and what to try next.',
    '',
    'commands:',
    ...names.map((n) => `  ${n.padEnd(w)}  ${COMMANDS[n]!.summary}`),
    '',
    'global options:',
    '  --root DIR|FILE.tar.gz  read a snapshot instead of this machine (never acted on)',
    '  --example NAME          read a shipped example machine (see numakit examples)',
    '  --no-color              no colours (also NO_COLOR=1)',
    '  -h, --help              this text; numakit COMMAND --help for a command',
    '',
  ].join('\n');
}

async function resolveRoot(g: Globals): Promise<SysRoot> {
  if (g.example !== undefined) {
    const { exampleDir } = await import('./examples_dir.js');
    return openRoot(exampleDir(g.example), `example ${g.example}`);
  }
  if (g.root === undefined) return REAL_ROOT;
  if (/\.(tar\.gz|tgz)$/.test(g.root)) {
    const { extractSnapshot } = await import('../actuate/snapshot_archive.js');
    return openRoot(await extractSnapshot(g.root), g.root);
  }
  return openRoot(g.root);
}

export interface Io {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly isTTY: boolean;
}

const PROCESS_IO: Io = {
  out: (t) => void process.stdout.write(t),
  err: (t) => void process.stderr.write(t),
  isTTY: process.stdout.isTTY === true,
};

export async function main(argv: string[], io: Io = PROCESS_IO): Promise<number> {
  const { globals, command, args } = splitGlobals(argv, (c) => COMMANDS[c]?.rawArgs === true);
  if (globals.version) {
    io.out(`numakit ${VERSION}\n`);
    return 0;
  }
  if (globals.help || command === 'help') {
    const target = command === 'help' ? args[0] : undefined;
    if (target !== undefined && COMMANDS[target]) io.out((await COMMANDS[target].load()).usage);
    else io.out(usage());
    return 0;
  }
  const name = command ?? 'overview';
  const entry: CommandEntry | undefined = name === 'overview'
    ? { summary: 'overview', load: async () => (await import('./commands/overview.js')).default }
    : COMMANDS[name];
  if (!entry) throw new UsageError(`unknown command '${name}'; see 'numakit --help'`);
  const cmd = await entry.load();
  // A raw-argument command (run) reads its own --help: after its options, "--help" belongs to
  // the command it launches.
  if (entry.rawArgs !== true && (args.includes('--help') || args.includes('-h'))) {
    io.out(cmd.usage);
    return 0;
  }
  const root = await resolveRoot(globals);
  const ctx: Context = {
    root,
    rootGiven: globals.root !== undefined || globals.example !== undefined,
    out: io.out,
    err: io.err,
    isTTY: io.isTTY,
    color: io.isTTY && !globals.noColor && !process.env.NO_COLOR,
  };
  return cmd.run(args, ctx);
}

/** One line for any error; a stack only with NUMAKIT_DEBUG=1. */
export function describeError(e: unknown): { message: string; code: number } {
  if (e instanceof NumakitError) return { message: e.message, code: e.exitCode };
  if (e instanceof SysfsParseError) return { message: `cannot parse ${e.message}`, code: 1 };
  const err = e as NodeJS.ErrnoException;
  if (err && typeof err.code === 'string' && typeof err.path === 'string') {
    return { message: `${err.path}: ${err.code === 'EACCES' ? 'permission denied' : err.message}`, code: 1 };
  }
  if (err && err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return { message: err.message.split('.')[0]!, code: 2 };
  if (err && typeof err.code === 'string' && err.code.startsWith('ERR_PARSE_ARGS')) return { message: err.message, code: 2 };
  return { message: `internal error: ${err?.message ?? String(e)} (NUMAKIT_DEBUG=1 shows where)`, code: 70 };
}
