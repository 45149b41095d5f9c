// Whether the agent that wrote a journal is still running: a killed agent not yet reaped
// (zombie) or a pid reused by another program must not block `numakit agent restore`.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { it } from 'node:test';
import { agentRunning } from '../../../src/agent/restore.js';
import type { ChangeSet } from '../../../src/model/change.js';
import { needTools } from '../../helpers/tools.js';

const set = (pid: number): ChangeSet => ({
  version: 1,
  id: 'x',
  time: '',
  source: 'agent',
  status: 'applying',
  pid,
  planned: 0,
  entries: [],
  files: [],
  threads: [],
});

it('a zombie, a reused pid and a finished set are not a running agent; a live agent is', async (t) => {
  if (!needTools(t, 'sh', 'bash')) return;
  // sh forks `true` (which exits and stays a zombie: its new parent, sleep, never reaps) and prints its pid.
  const sh = spawn('sh', ['-c', 'true & echo $!; exec sleep 5'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const agent = spawn('bash', ['-c', 'exec -a numakit-agent sleep 5'], { stdio: 'ignore' });
  try {
    const zombie = Number(String((await once(sh.stdout, 'data'))[0]).trim());
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(agentRunning(set(zombie)), false, 'zombie');
    assert.equal(agentRunning(set(sh.pid!)), false, 'a live process that is not an agent');
    assert.equal(agentRunning(set(agent.pid!)), true, 'a live agent');
    assert.equal(agentRunning({ ...set(agent.pid!), status: 'rolled-back' }), false, 'its set is finished');
  } finally {
    sh.kill();
    agent.kill();
  }
});

it('numakit rollback leaves agent change sets to `numakit agent restore` and says so', async () => {
  const { selectForRollback } = await import('../../../src/actuate/rollback.js');
  const agentSet: ChangeSet = {
    ...set(1),
    status: 'applying',
    threads: [{ pid: 9, tid: 9, start: 1, comm: 'x', old: '0-3', value: '1', state: 'written' }],
  };
  assert.throws(
    () => selectForRollback([agentSet], {}),
    /change set x holds numakit agent's changes: run 'numakit agent restore'/,
  );
  assert.throws(
    () => selectForRollback([agentSet], { id: 'x' }),
    /was made by numakit agent: run 'numakit agent restore'/,
  );
});
