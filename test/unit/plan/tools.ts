// External tools the plan validators run (bash, shellcheck, systemd-analyze). In CI (CI=true) a
// missing tool fails the test; locally it skips with a printed reason.
import { spawnSync } from 'node:child_process';
import type { TestContext } from 'node:test';

export function haveTool(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).status === 0;
}

/** True when the tool is there; otherwise fails in CI or skips locally (returns false). */
export function needTool(t: TestContext, name: string, pkg: string): boolean {
  if (haveTool(name)) return true;
  const why = `${name} is not installed (Debian package ${pkg}; .ci/run installs it)`;
  if (process.env.CI === 'true' || process.env.CI === '1') throw new Error(`${why}: required in CI`);
  console.log(`# skipped: ${why}`);
  t.skip(why);
  return false;
}

export function run(
  cmd: string,
  args: string[],
  opts: { input?: string; cwd?: string } = {},
): { code: number; out: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', input: opts.input, cwd: opts.cwd });
  return { code: r.status ?? 1, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}
