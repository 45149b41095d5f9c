// Child process for the SIGKILL test: applies CHANGES (JSON in argv[4]) to the fake tree in
// argv[2] with the journal in argv[3]. NUMAKIT_TEST_APPLY_DELAY_MS makes it slow enough to kill.
import { applyPlan } from '../../../src/actuate/apply.js';
import { planChanges } from '../../../src/actuate/targets.js';
import type { Change } from '../../../src/model/change.js';
import { fakeSystem } from './fake_system.js';

const [dir, stateDir, json] = process.argv.slice(2) as [string, string, string];
const sys = fakeSystem(dir);
const changes = JSON.parse(json) as Change[];
applyPlan(sys, planChanges(sys, changes), { stateDir, source: 'child' });
process.stdout.write('applied\n');
