// Runs the external tools the plan validators use (bash, shellcheck, systemd-analyze); whether
// they are there, and what a test does when not, is test/helpers/tools.ts.
import { spawnSync } from 'node:child_process';

export function run(
  cmd: string,
  args: string[],
  opts: { input?: string; cwd?: string } = {},
): { code: number; out: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', input: opts.input, cwd: opts.cwd });
  return { code: r.status ?? 1, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}
