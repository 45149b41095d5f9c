// `numakit completion` reads the command table the build flattened into
// dist/cli/completion/commands.json (scripts/gen-share.mjs) instead of loading every command.
// That file must be the table the built commands give when loaded, and the package's executable
// must print, from it, the same scripts as a CLI that loads the commands (run from a copy of
// the built tree without the file). Run by `npm run test:dist` (after a build).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { REPO_DIR } from '../helpers/cli.js';

const TABLE = join(REPO_DIR, 'dist', 'cli', 'completion', 'table.js');
const dir = mkdtempSync(join(tmpdir(), 'numakit-completion-table-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const numakit = (bin: string, ...args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });

describe('the prebuilt completion table', () => {
  it('is the table of the built commands, loaded', async () => {
    const t = (await import(pathToFileURL(TABLE).href)) as {
      PREBUILT: string;
      loadCompletionCommands: (table: unknown) => Promise<unknown>;
    };
    const commands = join(REPO_DIR, 'dist', 'cli', 'commands', 'index.js');
    const { TABLE: table } = (await import(pathToFileURL(commands).href)) as { TABLE: unknown };
    assert.ok(existsSync(t.PREBUILT), `${t.PREBUILT}: the build writes it`);
    assert.deepEqual(
      JSON.parse(readFileSync(t.PREBUILT, 'utf8')),
      JSON.parse(JSON.stringify(await t.loadCompletionCommands(table))),
    );
  });

  it('gives the same bash, zsh and fish scripts as loading the commands', () => {
    // A copy of the built CLI without the file: its completion loads every command.
    cpSync(join(REPO_DIR, 'dist'), join(dir, 'dist'), { recursive: true });
    for (const link of ['node_modules', 'examples', 'package.json']) symlinkSync(join(REPO_DIR, link), join(dir, link));
    rmSync(join(dir, 'dist', 'cli', 'completion', 'commands.json'));
    for (const shell of ['bash', 'zsh', 'fish']) {
      const packaged = numakit(join(REPO_DIR, 'dist', 'cli', 'numakit.cjs'), 'completion', shell);
      const loaded = numakit(join(dir, 'dist', 'cli', 'bin.js'), 'completion', shell);
      assert.equal(packaged.status, 0, packaged.stderr);
      assert.equal(loaded.status, 0, loaded.stderr);
      assert.ok(packaged.stdout.length > 1000, shell);
      assert.equal(packaged.stdout, loaded.stdout, shell);
    }
  });
});
