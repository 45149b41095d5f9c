import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { listChangeSets } from '../../../src/actuate/journal.js';
import { rollback } from '../../../src/actuate/rollback.js';
import type { Change } from '../../../src/model/change.js';
import { fakeSystem, makeTree, treeContents } from './fake_system.js';

const CHILD = fileURLToPath(new URL('./child_apply.ts', import.meta.url));
const CHANGES: Change[] = [
  { kind: 'sysctl', target: 'kernel.numa_balancing', value: '0', reason: 'r' },
  { kind: 'sysfs', target: 'sys/kernel/mm/transparent_hugepage/enabled', value: 'never', reason: 'r' },
  { kind: 'irq-affinity', target: 40, value: '0', reason: 'r' },
  { kind: 'irq-affinity', target: 41, value: '1', reason: 'r' },
  { kind: 'service', target: 'irqbalance', value: 'stopped', reason: 'r' },
  { kind: 'sysctl', target: 'vm.swappiness', value: '10', reason: 'r' },
];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('an apply killed with SIGKILL half way is fully undone by rollback', async () => {
  const dir = makeTree();
  const stateDir = mkdtempSync(join(tmpdir(), 'numakit-state-'));
  const before = treeContents(dir);
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir, stateDir, JSON.stringify(CHANGES)], {
    env: { ...process.env, NUMAKIT_TEST_APPLY_DELAY_MS: '300' },
    stdio: 'ignore',
  });
  const exited = new Promise<string | null>((r) => child.on('exit', (_code, sig) => r(sig)));
  // Wait until at least two changes are written, then kill without warning.
  for (let i = 0; i < 200; i++) {
    const cs = listChangeSets(stateDir)[0];
    if (cs !== undefined && cs.entries.filter((e) => e.state === 'written').length >= 2) break;
    await sleep(25);
  }
  child.kill('SIGKILL');
  assert.equal(await exited, 'SIGKILL');

  const killed = listChangeSets(stateDir)[0]!;
  assert.equal(killed.status, 'applying');
  assert.ok(killed.entries.length >= 2 && killed.entries.length < CHANGES.length, `killed half way: ${killed.entries.length} of ${CHANGES.length}`);
  assert.notDeepEqual(treeContents(dir), before, 'the killed apply changed something');

  const [undo] = rollback(fakeSystem(dir), { stateDir });
  assert.equal(undo!.failures.length, 0);
  assert.deepEqual(treeContents(dir), before);
  assert.equal(listChangeSets(stateDir)[0]!.status, 'rolled-back');
});
