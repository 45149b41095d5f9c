// deploy/ansible's apply playbook in check mode (--check) on this machine (connection local),
// numakit reading a shipped example machine: every change apply would make is printed as
// `path: old -> new` (the same changes as `numakit apply --dry-run`), the host is reported
// changed, and nothing is written: no journal, no state directory. Also: the README's Ansible
// commands use an inventory that exists or that they copy first.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { REPO_DIR } from '../../helpers/cli.js';
import { skipUnlessTools } from '../../helpers/tools.js';

const ANSIBLE = join(REPO_DIR, 'deploy', 'ansible');
const BIN = join(REPO_DIR, 'dist', 'cli', 'bin.js');
const work = mkdtempSync(join(tmpdir(), 'numakit-ansible-check-'));
after(() => rmSync(work, { recursive: true, force: true }));

it('apply.yml --check prints what apply would change, reports changed, and writes nothing', {
  skip: existsSync(BIN) ? skipUnlessTools('ansible-playbook') : 'needs a build (npm run build)',
}, () => {
  const state = join(work, 'state');
  const numakit = [process.execPath, BIN, '--example', 'spark-2s'];
  writeFileSync(
    join(work, 'inventory.yml'),
    JSON.stringify({
      numakit: {
        hosts: { local: { ansible_connection: 'local', ansible_python_interpreter: '/usr/bin/python3' } },
        vars: { numakit_command: numakit, numakit_state_dir: state, numakit_apply_profile: 'database' },
      },
    }),
  );
  const r = spawnSync(
    'ansible-playbook',
    ['-i', join(work, 'inventory.yml'), join(ANSIBLE, 'playbooks', 'apply.yml'), '--check'],
    {
      encoding: 'utf8',
      cwd: ANSIBLE,
      timeout: 300_000,
      env: {
        ...process.env,
        ANSIBLE_CONFIG: join(ANSIBLE, 'ansible.cfg'),
        ANSIBLE_NOCOLOR: '1',
        ANSIBLE_HOME: join(work, 'ansible-home'),
        ANSIBLE_LOCAL_TEMP: join(work, 'ansible-home', 'tmp'),
      },
    },
  );
  const out = `${r.stdout}${r.stderr}`;
  assert.equal(r.status, 0, out);
  // The dry run's changes, as numakit itself reports them.
  const dry = spawnSync(process.execPath, [...numakit.slice(1), 'apply', '--profile', 'database', '--json'], {
    encoding: 'utf8',
  });
  const changes = (
    JSON.parse(dry.stdout) as { changes: { path: string; current: string; value: string; action: string }[] }
  ).changes.filter((c) => c.action === 'change');
  assert.ok(changes.length > 0, 'the example has something to change');
  for (const c of changes)
    assert.ok(out.includes(`/${c.path.replace(/^\//, '')}: ${c.current} -> ${c.value}`), `${c.path}\n${out}`);
  assert.match(out, /^local\s+:\s+ok=\d+\s+changed=1\s+unreachable=0\s+failed=0/m);
  assert.doesNotMatch(out, /Apply the tuning as one journaled change set/);
  assert.ok(!existsSync(state), 'check mode created no state directory');
});

it("the README's and docs' Ansible commands name an inventory that exists or that they copy first", () => {
  for (const f of ['README.md', 'docs/fleet.md']) {
    const text = readFileSync(join(REPO_DIR, f), 'utf8');
    const copied = new Set([...text.matchAll(/cp inventory\.example\.ini (\S+)/g)].map((m) => m[1]!));
    const used = [...text.matchAll(/ansible-playbook -i (\S+)/g)].map((m) => m[1]!);
    assert.ok(used.length > 0, f);
    for (const inv of used) assert.ok(copied.has(inv) || existsSync(join(ANSIBLE, inv)), `${f}: -i ${inv}`);
  }
  assert.ok(existsSync(join(ANSIBLE, 'inventory.example.ini')));
});
