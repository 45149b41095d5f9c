// The Ansible role runs as root on every host: a file it writes at a fixed name under a directory
// every user can write (/tmp, /var/tmp, /dev/shm) is a path another user can take first, with a
// symlink root would then write through. Its scratch files go in a directory made for the run
// (ansible.builtin.tempfile: mkdtemp, 0700).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { REPO_DIR } from '../../helpers/cli.js';

const ROLE = join(REPO_DIR, 'deploy', 'ansible');

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? yamlFiles(join(dir, e.name)) : /\.ya?ml$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

describe('deploy/ansible writes no fixed name in a directory every user can write', () => {
  const files = yamlFiles(ROLE);
  it('finds the role and its playbooks', () => assert.ok(files.length >= 5, files.join(' ')));
  for (const f of files)
    it(f.slice(ROLE.length + 1), () => {
      const lines = readFileSync(f, 'utf8')
        .split('\n')
        .map((l, i) => [i + 1, l] as const)
        .filter(([, l]) => !l.trimStart().startsWith('#') && /(^|[\s'"[(])\/(tmp|var\/tmp|dev\/shm)\//.test(l));
      assert.deepEqual(lines, [], 'use ansible.builtin.tempfile');
    });
});
