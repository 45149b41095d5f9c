// What a Node process had loaded when it exited: `node -r HOOK ARGS`, the hook writing the value of
// a CommonJS expression (process.moduleLoadList, Object.keys(require.cache) ...) joined by newlines
// to a file at exit. For tests of what a command loads (test/unit/run/startup_modules.test.ts,
// test/unit/cli/lazy_packages.test.ts).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The lines of `expr` (an array of strings) evaluated at the exit of `node -r HOOK ...args`; the run must exit 0. */
export function atExit(args: readonly string[], expr: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'numakit-exit-hook-'));
  try {
    const out = join(dir, 'list');
    const hook = join(dir, 'hook.cjs');
    writeFileSync(
      hook,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, (${expr}).join('\\n')));`,
    );
    const r = spawnSync(process.execPath, ['-r', hook, ...args], { encoding: 'utf8' });
    assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
    return readFileSync(out, 'utf8').split('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
