#!/usr/bin/env node
// After `tsc`: writes what the package ships besides the code, generated from the built CLI's
// command table: the man page and the bash, zsh and fish completion scripts, under dist/share/
// in the layout of /usr/share (npm links man pages from package.json "man"), and the flattened
// table `numakit completion` reads (dist/cli/completion/commands.json).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
// First the flattened command table `numakit completion` reads instead of loading every command
// (src/cli/completion/table.ts), from the commands just built; the scripts below then come from it.
const { loadCompletionCommands, PREBUILT } = await import(join(dist, 'cli/completion/table.js'));
rmSync(PREBUILT, { force: true });
const { TABLE } = await import(join(dist, 'cli/commands/index.js'));
writeFileSync(PREBUILT, `${JSON.stringify(await loadCompletionCommands(TABLE))}\n`);
const { main } = await import(join(dist, 'cli/main.js'));

async function capture(argv) {
  let out = '';
  const code = await main(argv, { out: (t) => void (out += t), err: (t) => process.stderr.write(t), isTTY: false });
  if (code !== 0) throw new Error(`numakit ${argv.join(' ')} exited ${code}`);
  return out;
}

const files = {
  'share/man/man1/numakit.1': ['help', '--man'],
  'share/bash-completion/completions/numakit': ['completion', 'bash'],
  'share/zsh/site-functions/_numakit': ['completion', 'zsh'],
  'share/fish/vendor_completions.d/numakit.fish': ['completion', 'fish'],
};
for (const [rel, argv] of Object.entries(files)) {
  const path = join(dist, rel);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, await capture(argv));
}
