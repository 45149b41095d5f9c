// The entry of dist/cli/numakit-run.bundle.cjs (run_main.ts says why). `numakit run ...` only:
// the launcher (src/cli/numakit.cjs) starts it when argv[2] is "run"; what run's launch path
// does not cover is handed to the full program (the launcher's runFull, the same argv).
import { createRequire } from 'node:module';
import { exitWith } from './process_io.js';
import { runMain } from './run_main.js';

exitWith(async () => {
  const r = await runMain(process.argv.slice(3));
  if (r !== 'full') return r;
  // The launcher is this process's main module: its runFull runs the whole program's bundle,
  // which reads argv itself and sets the exit status; this entry then sets nothing.
  (createRequire(import.meta.url)('./numakit.cjs') as { runFull(): void }).runFull();
  return new Promise<number>(() => {});
});
