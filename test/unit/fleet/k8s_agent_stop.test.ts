// numakit k8s agent-stop (the agent pod's preStop hook) with no agent running: it says so and
// succeeds, so a pod whose agent already exited stops cleanly. Stopping a running agent is
// tested on a real kernel in test/lab/k8s.lab.test.ts.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { runMain } from '../../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'numakit-agent-stop-'));
after(() => rmSync(dir, { recursive: true, force: true }));

it('with no running agent in the journal: nothing to stop, exit 0', async () => {
  const r = await runMain(['k8s', 'agent-stop', '--state-dir', dir, '--wait', '1s']);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, `no running numakit agent in ${dir}: nothing to stop\n`);
});

it('a bad --wait is a usage error', async () => {
  const r = await runMain(['k8s', 'agent-stop', '--state-dir', dir, '--wait', 'soon']);
  assert.equal(r.code, 2);
  assert.match(r.err, /--wait 'soon': expected a duration/);
});
