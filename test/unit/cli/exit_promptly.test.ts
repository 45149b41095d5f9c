// exitPromptly (src/cli/process_io.ts): a command that asked for it ends the process as soon as it
// returns, with its exit status, though something is still pending on the event loop; without
// it the process waits for the loop to empty, as every other command does.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';

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
  const p = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let limit: NodeJS.Timeout | undefined;
  p.stdout.on('data', (d) => {
    out += d;
    // Killed 2 s after the command returned, if it has not ended by then.
    if (limit === undefined && out.includes('done')) limit = setTimeout(() => p.kill('SIGKILL'), 2000);
  });
  p.stderr.on('data', (d) => (out += d));
  const [code] = await once(p, 'exit');
  clearTimeout(limit);
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
