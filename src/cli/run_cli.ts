// What the `numakit` executable does with its process: run main() on argv and map its outcome to
// an exit code. bin.ts calls it at once; the single executable's startup-snapshot variant (measured
// by bench/sea.mjs, src/cli/snapshot_main.ts) calls it after the snapshot is deserialized.
import { describeError, main } from './main.js';
import { stdoutDirect } from './stdout.js';

export function runCli(): void {
  // EPIPE on stdout (numakit topo | head) is a normal end, not an error (writeStdout says the
  // same when output goes straight to fd 1, src/cli/stdout.ts).
  if (!stdoutDirect())
    process.stdout.on('error', (e: NodeJS.ErrnoException) => process.exit(e.code === 'EPIPE' ? 0 : 1));

  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      if (process.env.NUMAKIT_DEBUG) console.error(e);
      const { message, code } = describeError(e);
      process.stderr.write(`numakit: ${message}\n`);
      process.exitCode = code;
    },
  );
}
