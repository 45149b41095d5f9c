// numakit entry point: parse global options, find the command (and subcommand), parse its
// arguments by its declaration, open the root, run it, and turn every error into one line on
// stderr. The only top-level catch in the program.
import { NumakitError, SysfsParseError, UsageError } from '../model/errors.js';
import { formatWarning, Warnings } from '../model/warnings.js';
import { openRoot, REAL_ROOT, treeRoot, type SysRoot } from '../sysfs/root.js';
import { requireSnapshotShape } from '../sysfs/root_shape.js';
import { COMMANDS, OVERVIEW, TABLE } from './commands/index.js';
import type { Context } from './context.js';
import { splitGlobals, type Globals } from './globals.js';
import { stdoutDirect, writeStdout } from './stdout.js';
import { parseCommandArgs, resolveSubcommand } from './parse_options.js';
import { VERSION } from './version.js';

async function resolveRoot(g: Globals): Promise<SysRoot> {
  if (g.example !== undefined) {
    const { exampleDir } = await import('./examples_dir.js');
    return openRoot(await exampleDir(g.example), `example ${g.example}`);
  }
  if (g.root === undefined) return REAL_ROOT;
  let root: SysRoot;
  if (/\.(tar\.gz|tgz)$/.test(g.root)) {
    // Read into memory, never extracted: nothing is written, nothing is left behind, and an
    // entry that is not a plain file, directory or link inside the archive refuses it whole.
    const { readSnapshotArchive } = await import('../sysfs/snapshot_archive.js');
    root = treeRoot(await readSnapshotArchive(g.root), g.root);
  } else root = openRoot(g.root);
  requireSnapshotShape(root, g.root);
  return root;
}

export interface Io {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly isTTY: boolean;
}

/** This process's stdout and stderr, looked at when main() runs (not when the module loads: a startup snapshot is made elsewhere). */
function processIo(): Io {
  const err = (t: string) => void process.stderr.write(t);
  if (stdoutDirect()) return { out: (t) => writeStdout(t), err, isTTY: false };
  return { out: (t) => void process.stdout.write(t), err, isTTY: process.stdout.isTTY === true };
}

export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  const { globals, command, args } = splitGlobals(argv, (c) => COMMANDS[c]?.rawArgs === true);
  if (globals.version) {
    io.out(`numakit ${VERSION}\n`);
    return 0;
  }
  if (globals.help) {
    const { renderMainHelp } = await import('./help_main.js');
    io.out(await renderMainHelp(TABLE));
    return 0;
  }
  const entry = command === undefined ? OVERVIEW : COMMANDS[command];
  if (!entry) throw new UsageError(`unknown command '${command}'; see 'numakit --help'`);
  const { cmd, args: rest, name } = resolveSubcommand(await entry.load(), args, command ?? '');
  const parsed = parseCommandArgs(cmd, rest, name);
  if (parsed.help) {
    io.out(
      command === undefined
        ? await (await import('./help_main.js')).renderMainHelp(TABLE)
        : (await import('./help.js')).renderHelp(name, cmd),
    );
    return 0;
  }
  // Files that exist but cannot be used cost their fact, not the command: each is said once.
  const warnings = new Warnings((w) => io.err(`numakit: warning: ${formatWarning(w)}\n`));
  const root: SysRoot = { ...(await resolveRoot(globals)), warnings };
  const ctx: Context = {
    root,
    rootGiven: globals.root !== undefined || globals.example !== undefined,
    out: io.out,
    err: io.err,
    isTTY: io.isTTY,
    color: io.isTTY && !globals.noColor && !process.env.NO_COLOR,
  };
  return cmd.run(parsed, ctx);
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
