// numakit entry point: parse global options, find the command (and subcommand), parse its
// arguments by its declaration, open the root, and run it. Every error becomes one line on
// stderr in exitWith (process_io.ts), the only top-level catch in the program.
import { UsageError } from '../model/errors.js';
import { openRoot, REAL_ROOT, treeRoot, type SysRoot } from '../sysfs/root.js';
import { requireSnapshotShape } from '../sysfs/root_shape.js';
import { COMMANDS, OVERVIEW, TABLE } from './commands/index.js';
import { splitGlobals, type Globals } from './globals.js';
import { contextOf, type Io, processIo } from './process_io.js';
import { parseCommandArgs, resolveSubcommand } from './parse_options.js';
import { VERSION } from './version.js';

export { describeError, type Io } from './process_io.js';

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
  const ctx = contextOf(await resolveRoot(globals), io, {
    rootGiven: globals.root !== undefined || globals.example !== undefined,
    noColor: globals.noColor,
  });
  return cmd.run(parsed, ctx);
}
