// deploy/ansible is ansible-lint clean (Debian's ansible-lint, the production profile), which
// also syntax-checks every playbook. The playbooks run against real hosts in
// test/lab/ansible.lab.test.ts.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { REPO_DIR } from '../../helpers/cli.js';
import { skipUnlessTools } from '../../helpers/tools.js';

// ansible-lint's caches and Ansible's temp files in a home of its own, not the user's.
const home = mkdtempSync(join(tmpdir(), 'numakit-ansible-lint-'));
after(() => rmSync(home, { recursive: true, force: true }));

it('ansible-lint passes on deploy/ansible with the production profile', {
  skip: skipUnlessTools('ansible-lint'),
}, () => {
  const dir = join(REPO_DIR, 'deploy', 'ansible');
  const r = spawnSync('ansible-lint', ['--nocolor', '--profile', 'production'], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 180_000,
    env: {
      ...process.env,
      HOME: home,
      XDG_CACHE_HOME: join(home, '.cache'),
      ANSIBLE_HOME: join(home, '.ansible'),
      ANSIBLE_CONFIG: join(dir, 'ansible.cfg'),
      NO_COLOR: '1',
    },
  });
  if (r.error) throw r.error;
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  assert.match(`${r.stdout}${r.stderr}`, /Passed with production profile: 0 failure\(s\), 0 warning\(s\)/);
});
