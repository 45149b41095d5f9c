// Runs an ESM script (through tsx) in a child Node process that prints 'done' when it reaches the
// point under test; the child is killed `graceMs` after that if it has not ended by itself.
import { spawn } from 'node:child_process';
import { once } from 'node:events';

export async function runUntilDone(script: string, graceMs: number): Promise<{ code: number | null; out: string }> {
  const p = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let limit: NodeJS.Timeout | undefined;
  p.stdout.on('data', (d) => {
    out += d;
    if (limit === undefined && out.includes('done')) limit = setTimeout(() => p.kill('SIGKILL'), graceMs);
  });
  p.stderr.on('data', (d) => (out += d));
  const [code] = await once(p, 'exit');
  clearTimeout(limit);
  return { code: code as number | null, out };
}
