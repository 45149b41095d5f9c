// Synchronous helper for the lab's one-off setup commands, with one-line errors.
import { spawnSync } from 'node:child_process';

/** The lab cannot be set up (missing package, no network, ...). The message is one line. */
export class LabSetupError extends Error {
  override name = 'LabSetupError';
}

export interface RunOptions {
  readonly cwd?: string;
  /** What the command does, for the error message. */
  readonly what: string;
}

export function run(cmd: string, args: readonly string[], opts: RunOptions): string {
  const r = spawnSync(cmd, args, { cwd: opts.cwd, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.error) throw new LabSetupError(`${opts.what}: cannot run ${cmd} (${r.error.message})`);
  if (r.status !== 0) {
    const tail = (r.stderr || r.stdout || '').trim().split('\n').slice(-3).join(' | ');
    throw new LabSetupError(`${opts.what} failed (exit ${r.status ?? r.signal}): ${tail}`);
  }
  return r.stdout;
}

/** True when `cmd` is found on PATH. */
export function hasCommand(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v '${cmd}'`], { stdio: 'ignore' }).status === 0;
}
