// A command loads the yaml and zod packages only when it uses them: they are required from
// node_modules without the bundle's code cache, yaml about 25 ms of CPU and zod about 40, more than
// the rest of `plan postgres` or `apply --profile` on a small machine (docs/startup.md). Checked on
// the package's executable, as installed: the packages a run has in require.cache when it exits.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { REPO_DIR } from '../../helpers/cli.js';
import { atExit } from '../../helpers/exit_hook.js';

const bin = join(REPO_DIR, 'dist', 'cli', 'numakit.cjs');

/** The packages under node_modules that a run of the executable with `args` has loaded at exit. */
function packagesLoaded(args: string[]): string[] {
  const names = atExit([bin, '--example', 'spark-2s', ...args], 'Object.keys(require.cache)')
    .map((f) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(f)?.[1])
    .filter((n): n is string => n !== undefined);
  return [...new Set(names)].sort();
}

it('plan and apply --profile load neither yaml nor zod; a spark-k8s plan and a change file do load them', (t) => {
  if (!existsSync(bin)) return t.skip('dist/ not built (npm run build)');
  for (const args of [
    ['plan', 'postgres', '--buffer-pool', '8g'],
    ['plan', 'spark-standalone'],
    ['apply', '--profile', 'database'],
    ['topo'],
  ]) {
    const loaded = packagesLoaded(args).filter((p) => p === 'yaml' || p === 'zod');
    assert.deepEqual(loaded, [], `${args.join(' ')} loaded ${loaded.join(', ')}`);
  }
  // The same hook sees them where they are used: the check above can fail.
  assert.ok(packagesLoaded(['plan', 'spark-k8s', '--k8s-node', 'n1']).includes('yaml'), 'plan spark-k8s loads yaml');
  const dir = mkdtempSync(join(tmpdir(), 'numakit-change-file-'));
  try {
    const file = join(dir, 'changes.yaml');
    writeFileSync(file, 'changes:\n  - {kind: sysctl, target: vm.swappiness, value: 10}\n');
    const loaded = packagesLoaded(['apply', file]);
    assert.ok(loaded.includes('yaml') && loaded.includes('zod'), `apply FILE loaded ${loaded.join(', ')}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
