// `numakit run` loads nothing it does not use before it becomes the command (issue 25's goal: at
// most 25 ms over `node -e 0`, bench/run-startup.mjs): Node's built-in modules it loads beyond bare
// Node's, from the package's executable. Before: node:crypto (the single executable's asset cache,
// through koffi_load), child_process and net (ip:HOST's resolver), v8 and Node's stream modules
// (the agent's V8 flags, for every command), and koffi's ES module resolution.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { REPO_DIR } from '../../helpers/cli.js';
import { atExit } from '../../helpers/exit_hook.js';

const bin = join(REPO_DIR, 'dist', 'cli', 'numakit.cjs');

const builtins = (args: string[]) => atExit(args, 'process.moduleLoadList');

it("run loads none of Node's modules it does not use (crypto, child_process, net, stream, v8, the ES module resolver)", (t) => {
  if (!existsSync(bin)) return t.skip('dist/ not built (npm run build)');
  const bare = new Set(builtins(['-e', '0']));
  const extra = builtins([bin, 'run', '--localalloc', '--show']).filter((m) => !bare.has(m));
  const unwanted = extra.filter((m) =>
    /^NativeModule (crypto|child_process|net|stream|v8|dgram|internal\/modules\/esm\/resolve)$/.test(m),
  );
  assert.deepEqual(unwanted, [], `loaded: ${extra.join(', ')}`);
});
