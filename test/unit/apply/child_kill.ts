// Child process of the kill-at-every-step test: applies CHANGES (or rolls back) on a fake tree
// and SIGKILLs itself right after write point KILL_AT (test/helpers/kill_points.ts). With
// KILL_AT 0 it runs to the end and prints the points it passed, one per line.
//   argv: MODE(apply|rollback) TREE STATE_DIR KILL_AT JSON({changes, persist})
import { dirname } from 'node:path';
import { applyPlan, type PersistFile } from '../../../src/actuate/apply.js';
import { rollback } from '../../../src/actuate/rollback.js';
import { planChanges } from '../../../src/actuate/targets.js';
import type { Change } from '../../../src/model/change.js';
import { killPoints } from '../../helpers/kill_points.js';
import { fakeSystem } from './fake_system.js';

const [mode, dir, stateDir, killAt, json] = process.argv.slice(2) as [string, string, string, string, string];
const { changes, persist } = JSON.parse(json) as { changes: Change[]; persist: PersistFile[] };
const persistDirs = new Set(persist.map((f) => dirname(f.path)));
const kp = killPoints(Number(killAt), {
  knobRoots: [`${dir}/proc`, `${dir}/sys`],
  durableDirs: (d) => d === `${stateDir}/journal` || persistDirs.has(d),
});
const sys = fakeSystem(dir);
if (mode === 'apply') applyPlan(sys, planChanges(sys, changes), { stateDir, source: 'child', persist });
else rollback(sys, { stateDir });
process.stdout.write(`${kp.names.join('\n')}\n`);
