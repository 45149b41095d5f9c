// The `agent` variant: `numakit agent` running beside the workload. Started before the run and
// waited for until it says it is ready; stopped after it with SIGTERM, on which it puts back
// every thread affinity and numa_balancing it changed (its journal keeps them if it cannot).
import { spawn, type ChildProcess } from 'node:child_process';
import { NumakitError } from '../model/errors.js';

export interface RunningAgent {
  /** SIGTERM, then wait for its exit (SIGKILL after `graceMs`). Returns a note when it did not end cleanly. */
  stop(graceMs?: number): Promise<string | null>;
  readonly child: ChildProcess;
}

/** `self`: the command line that starts numakit itself (src/cli/self.ts selfCommand), then `agent ARGS`. */
export async function startAgent(
  self: readonly string[],
  args: readonly string[],
  readyWithinMs = 60_000,
): Promise<RunningAgent> {
  const [exe, ...pre] = self;
  const child = spawn(exe!, [...pre, 'agent', '--interval', '1s', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  await untilReady(child, readyWithinMs);
  return { child, stop: (graceMs = 30_000) => stopAgent(child, graceMs) };
}

/**
 * Resolves once the agent says it is ready (its text or json log); rejects, with its last line,
 * when it exits first, or when it takes longer than `withinMs` (it is then sent SIGTERM).
 */
function untilReady(child: ChildProcess, withinMs: number): Promise<void> {
  let log = '';
  const collect = (d: Buffer) => {
    log = (log + d.toString('utf8')).slice(-4096);
  };
  child.stderr!.on('data', collect);
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(new NumakitError(`bench ab: numakit agent did not say it was ready within ${withinMs / 1000} s`));
    }, withinMs);
    child.stdout!.on('data', (d: Buffer) => {
      collect(d);
      if (/numakit agent ready|"event":"ready"/.test(log)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(
        new NumakitError(
          `bench ab: numakit agent exited (status ${code}) before it was ready: ${log.trim().split('\n').at(-1) ?? ''}`,
        ),
      );
    });
  });
}

/** SIGTERM, then its exit (SIGKILL after `graceMs`); a note when it had already exited or did not end with 0. */
async function stopAgent(child: ChildProcess, graceMs: number): Promise<string | null> {
  if (child.exitCode !== null || child.signalCode !== null)
    return `numakit agent had exited (status ${child.exitCode ?? child.signalCode}) during the run`;
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  const code = await exited;
  clearTimeout(timer);
  return code === 0
    ? null
    : `numakit agent ended with status ${code}: run 'numakit agent restore' if it left anything behind`;
}
