// --state-dir means the same on every command that has it: one declaration, one default, the
// agent's and the man page's included.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { DEFAULT_AGENT } from '../../../src/agent/config.js';
import { COMMANDS } from '../../../src/cli/commands/index.js';
import type { Command } from '../../../src/cli/options.js';
import { DEFAULT_STATE_DIR } from '../../../src/runtime/state_dir.js';
import { runMain } from '../../helpers/cli.js';

function withSubcommands(path: string, c: Command): [string, Command][] {
  return [[path, c], ...Object.entries(c.subcommands ?? {}).flatMap(([n, s]) => withSubcommands(`${path} ${n}`, s))];
}

it('every --state-dir is declared alike and says the one default', async () => {
  const found: string[] = [];
  for (const [name, e] of Object.entries(COMMANDS))
    for (const [path, c] of withSubcommands(name, await e.load())) {
      const o = c.options['state-dir'];
      if (o === undefined) continue;
      found.push(path);
      assert.equal(o.type, 'string', path);
      assert.equal(o.value, 'DIR', path);
      assert.equal(o.complete, 'dir', `${path}: completes a directory`);
      assert.match(o.help, new RegExp(`\\(default ${DEFAULT_STATE_DIR}\\)$`), path);
    }
  // apply, rollback, journal, agent (and its subcommands), k8s agent-stop, bench ab.
  for (const c of ['apply', 'rollback', 'journal', 'agent', 'k8s agent-stop', 'bench ab'])
    assert.ok(found.includes(c), `${c} takes --state-dir (found: ${found.join(', ')})`);
  assert.equal(DEFAULT_AGENT.stateDir, DEFAULT_STATE_DIR);
});

it('the man page names the default state directory', async () => {
  const r = await runMain(['help', '--man']);
  assert.match(r.out, new RegExp(`^\\.B ${DEFAULT_STATE_DIR}$`, 'm'));
});
