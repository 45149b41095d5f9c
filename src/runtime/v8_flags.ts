// V8 settings of the agent's process. src/cli/v8_early.ts sets them: the first module the
// `numakit` executable evaluates (the npm bin's bundle, dist/cli/bin.js and the single executable
// all start in bin.ts), so the systemd unit and every install form get them, with no NODE_OPTIONS.
//
// Why: once start-up has grown the heap and allocation slows down, V8's memory reducer runs up
// to three full mark-compact collections to shrink it ("Mark-Compact (reduce)" under --trace-gc),
// and the next passes grow it again. A daemon that allocates little between passes gains a few
// hundred KiB from it; under emulation (a TCG lab guest) those collections, their page faults and
// madvise calls were most of an idle agent's first minute after ready: 0.66-2.07 CPU s with the
// reducer, 0.06-0.10 without (docs/agent.md, "Without V8's memory reducer").
//   --no-memory-reducer, --no-memory-reducer-for-small-heaps: the reducer is never armed, where
//     they come before the heap has grown 1 MiB past V8's start (dist/cli/bin.js);
//   --no-incremental-marking: where it was armed before any of numakit's code ran (reading and
//     compiling the npm bin's bundle or the single executable's script grows the heap that much),
//     it cannot start its collections: they begin as incremental marking. Full collections are
//     then atomic, on a heap of a few MiB (milliseconds). An armed reducer still wakes every 8 s
//     to find it cannot start. Set any earlier (the npm bin's launcher), these flags would make V8
//     refuse the bundle's code cache, which was built without them.
// The collections that allocation triggers go on as before.
import { createRequire } from 'node:module';
export const AGENT_V8_FLAGS: readonly string[] = [
  '--no-memory-reducer',
  '--no-memory-reducer-for-small-heaps',
  '--no-incremental-marking',
];

/** The V8 flags for a command line: `numakit [GLOBAL OPTIONS] agent ...`, not `agent restore`. */
export function v8FlagsFor(argv: readonly string[]): readonly string[] {
  const at = argv.indexOf('agent');
  return at >= 0 && argv[at + 1] !== 'restore' ? AGENT_V8_FLAGS : [];
}

// topo and doctor on a large machine (hundreds of CPUs, thousands of processes): their peak RSS
// over a small machine's is V8's young generation doubling its semi-spaces while discovery and
// the views allocate, not what they keep, and doctor's scavenges copy what its process walk keeps
// alive. --semi-space-growth-factor=1 (read at each growth, so it may be set while the program
// runs) holds the young generation at its start size, for the same CPU time or less
// (docs/scale.md has the figures). Setting it loads node:v8, which a small machine's commands,
// at their start-up goal, do not pay.
export const LARGE_MACHINE_V8_FLAGS: readonly string[] = ['--semi-space-growth-factor=1'];
/** From this many possible CPUs on, a machine is large (LARGE_MACHINE_V8_FLAGS). */
export const LARGE_MACHINE_CPUS = 512;

/** The V8 flags for topo and doctor on a machine of `possibleCpus` CPUs: LARGE_MACHINE_V8_FLAGS on a large one, else none. */
export function v8FlagsForMachine(possibleCpus: number): readonly string[] {
  return possibleCpus >= LARGE_MACHINE_CPUS ? LARGE_MACHINE_V8_FLAGS : [];
}

/**
 * Sets `flags` now. node:v8 is loaded here, only when called, by require: a dynamic import()
 * has no loader in the single executable (its bundle is a script, not a module).
 */
export function setV8Flags(flags: readonly string[]): void {
  const { setFlagsFromString } = createRequire(import.meta.url)('node:v8') as typeof import('node:v8');
  for (const flag of flags) setFlagsFromString(flag);
}
