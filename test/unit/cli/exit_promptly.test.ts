// exitPromptly (src/cli/process_io.ts): a command that asked for it ends the process as soon as it
// returns, with its exit status, though something is still pending on the event loop; without
// it the process waits for the loop to empty, as every other command does.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runUntilDone } from '../../helpers/module_child.js';

const IO = fileURLToPath(new URL('../../../src/cli/process_io.ts', import.meta.url));

/** A child that runs exitWith on a command returning 3 and leaving a 20 s timer: its status, and how long it lived after the return. */
async function child(prompt: boolean): Promise<{ code: number | null; ms: number; out: string }> {
  const script = `
    import { exitPromptly, exitWith } from ${JSON.stringify(IO)};
    ${prompt ? 'exitPromptly();' : ''}
    exitWith(async () => {
      setTimeout(() => {}, 20_000);
      const at = performance.now();
      process.on('exit', () => process.stdout.write('lived ' + Math.round(performance.now() - at) + ' ms\\n'));
      process.stdout.write('done\\n');
      return 3;
    });`;
  // Killed 2 s after the command returned, if it has not ended by then.
  const { code, out } = await runUntilDone(script, 2000);
  return { code, ms: Number(/lived (\d+) ms/.exec(out)?.[1] ?? Number.NaN), out };
}

it('exitPromptly: the process ends when the command returns, with its status and its output whole', async () => {
  const r = await child(true);
  assert.equal(r.code, 3, r.out);
  assert.match(r.out, /^done\n/);
  assert.ok(r.ms < 1000, r.out);
});

it('without it, the process waits for what is pending (the timer), as before', async () => {
  const r = await child(false);
  assert.match(r.out, /^done\n/);
  assert.equal(r.code, null, `killed 2 s after it returned, still waiting on its timer: ${r.out}`);
});
