// What the `numakit` executable does with its process: run main() on argv and map its outcome to
// an exit code. bin.ts calls it at once; the single executable's startup-snapshot variant (measured
// by bench/sea.mjs, src/cli/snapshot_main.ts) calls it after the snapshot is deserialized.
import { main } from './main.js';
import { exitWith } from './process_io.js';

export function runCli(): void {
  exitWith(() => main(process.argv.slice(2)));
}
