// `numakit run`'s lean entry: the package's executable starts it for `numakit run ...`
// (src/cli/numakit.cjs), from its own small bundle (dist/cli/numakit-run.bundle.cjs: this file,
// run's command module and what its launch path imports), so a launch does not read, compile
// and evaluate the whole program first (docs/startup.md). It does what main() does for run: its
// arguments parsed by run's own parser, run on this machine, errors turned into one line.
// Whatever run's launch path does not cover is the full program's, with the same arguments:
// --help (the help renderer) and every module run loads with import() other than the syscall
// layer (--hardware's discovery, --shm and --file, ip:HOST's routing). In the lean bundle each
// such import is a stub that throws FullProgramOnly (scripts/bundle-cli.mjs), which run reaches
// before it has changed anything; then the full program runs the command instead.
import { REAL_ROOT } from '../sysfs/root.js';
import run from './commands/run.js';
import { parseCommandArgs } from './parse_options.js';
import { contextOf, type Io, processIo } from './process_io.js';

/** The name of the error a stub module of the lean bundle throws (scripts/bundle-cli.mjs). */
export const FULL_PROGRAM_ONLY = 'FullProgramOnly';

/** `numakit run ARGS`: its exit status, or 'full' for what only the full program does. */
export async function runMain(args: string[], io: Io = processIo()): Promise<number | 'full'> {
  const parsed = parseCommandArgs(run, args, 'run');
  if (parsed.help) return 'full';
  try {
    return await run.run(parsed, contextOf(REAL_ROOT, io, { rootGiven: false, noColor: false }));
  } catch (e) {
    if ((e as Error | null)?.name === FULL_PROGRAM_ONLY) return 'full';
    throw e;
  }
}
