// The agent variant's lifecycle (startAgent): ready on the agent's "ready" line, refused with its
// last line when it exits first or never says it, stopped by SIGTERM with a note unless it ends
// cleanly. A stand-in for numakit (node -e SCRIPT) plays the agent; nothing here needs root.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startAgent } from '../../../src/bench/ab_agent.ts';

/** A `self` command line whose `agent ...` arguments are ignored by SCRIPT. */
const fake = (script: string) => [process.execPath, '-e', script, '--'];

test('ready on its ready line; SIGTERM ends it cleanly: no note', async () => {
  const a = await startAgent(
    fake(
      `process.on('SIGTERM', () => process.exit(0)); console.log('numakit agent ready: pid 1'); setInterval(() => {}, 1000);`,
    ),
    [],
  );
  assert.equal(await a.stop(), null);
});

test('the json log ready event counts as ready; an unclean end is a note', async () => {
  const a = await startAgent(
    fake(
      `process.on('SIGTERM', () => process.exit(4)); console.log('{"event":"ready"}'); setInterval(() => {}, 1000);`,
    ),
    [],
  );
  assert.match((await a.stop())!, /^numakit agent ended with status 4: run 'numakit agent restore'/);
});

test('an agent that exits before it is ready: refused with its last line', async () => {
  await assert.rejects(
    startAgent(fake(`console.error('numakit: agent needs root'); process.exit(3);`), []),
    /numakit agent exited \(status 3\) before it was ready: numakit: agent needs root/,
  );
});

test('an agent that never says ready: refused after the wait, and sent SIGTERM', async () => {
  await assert.rejects(
    startAgent(fake('setInterval(() => {}, 1000);'), [], 300),
    /numakit agent did not say it was ready within 0.3 s/,
  );
});

test('an agent that exited during the run: stop says so', async () => {
  const a = await startAgent(fake(`console.log('numakit agent ready'); setTimeout(() => process.exit(0), 50);`), []);
  await new Promise((r) => a.child.once('exit', r));
  assert.equal(await a.stop(), 'numakit agent had exited (status 0) during the run');
});
