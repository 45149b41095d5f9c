// The single executable with a V8 startup snapshot instead of a code cache: a measurement, not a
// shipped build (scripts/build-sea.mjs --snapshot, run by bench/sea.mjs). At build time every
// command module is evaluated into the heap that the snapshot keeps; at run time the snapshot is
// deserialized and runCli() starts. Measured on this VM it did not pay (docs/startup.md), and
// module-level state (stdout's isTTY, the environment read at import) would be the build
// machine's, so the shipped executable uses the code cache.
import { startupSnapshot } from 'node:v8';
import { COMMANDS, OVERVIEW } from './commands/index.js';
import { runCli } from './run_cli.js';

for (const c of [...Object.values(COMMANDS), OVERVIEW]) void c.load();
void import('./doctor_overview.js');
void import('./stat_overview.js');
startupSnapshot.setDeserializeMainFunction(runCli);
