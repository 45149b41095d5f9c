// Whether the agent that wrote a journal is still running: a killed agent not yet reaped
// (zombie) or a pid reused by another program must not block `numakit agent restore`.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { agentRunning, isAgentCommand } from '../../../src/agent/restore.js';
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
  // numakit as npm installs it (node running the bundle), its command `agent`.
  const dir = mkdtempSync(join(tmpdir(), 'numakit-running-'));
  writeFileSync(join(dir, 'numakit.cjs'), 'setTimeout(() => {}, 5000);\n');
  const agent = spawn(process.execPath, [join(dir, 'numakit.cjs'), '--no-color', 'agent', '--once'], {
    stdio: 'ignore',
  });
  // A reused pid whose command line merely contains "agent".
  const other = spawn('bash', ['-c', 'exec -a numakit-agent sleep 5'], { stdio: 'ignore' });
  try {
    const zombie = Number(String((await once(sh.stdout, 'data'))[0]).trim());
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(agentRunning(set(zombie)), false, 'zombie');
    assert.equal(agentRunning(set(sh.pid!)), false, 'a live process that is not an agent');
    assert.equal(agentRunning(set(other.pid!)), false, 'a program whose name contains agent');
    assert.equal(agentRunning(set(agent.pid!)), true, 'a live agent');
    assert.equal(agentRunning({ ...set(agent.pid!), status: 'rolled-back' }), false, 'its set is finished');
  } finally {
    sh.kill();
    agent.kill();
    other.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});

it("numakit's agent is told by its argv elements, not by a substring of its command line", () => {
  const yes: string[][] = [
    ['/usr/local/bin/numakit', 'agent'],
    ['numakit-linux-x64', 'agent', 'restore', '--state-dir', '/var/lib/numakit'],
    ['node', '/usr/lib/node_modules/numakit/dist/cli/numakit.cjs', 'agent', '--interval', '5s'],
    ['node', '/usr/local/bin/numakit', '--root', '/', '--no-color', 'agent'],
    ['node', '--import', 'tsx', 'src/cli/bin.ts', 'agent'],
  ];
  const no: string[][] = [
    [],
    ['numakit-agent'],
    ['vim', 'agent.yaml'],
    ['/usr/bin/my-agent', '--numakit'],
    ['numakit', 'doctor', 'agent'],
    ['numakit', '--root', 'agent', 'stat'],
    ['node', 'agent.js', 'numakit'],
    ['node', '/opt/numakit/server.js', 'agent'],
  ];
  for (const argv of yes) assert.equal(isAgentCommand(argv), true, argv.join(' '));
  for (const argv of no) assert.equal(isAgentCommand(argv), false, argv.join(' '));
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
