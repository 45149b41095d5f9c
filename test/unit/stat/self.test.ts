// numakit never lists itself: stat --procs on this machine shows every process with memory but
// the numakit process that reads them.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';

const BIN = new URL('../../../dist/cli/bin.js', import.meta.url).pathname;

test('stat --procs does not list numakit itself', () => {
  const r = spawnSync(process.execPath, [BIN, 'stat', '--procs', '--json', '--top', '100000', '--window', '0.1'], {
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  const pids = (JSON.parse(r.stdout) as { processes: { pid: number }[] }).processes.map((p) => p.pid);
  assert.ok(pids.length > 0, 'other processes are listed');
  assert.ok(pids.includes(process.pid), 'the test runner itself (another node process) is listed');
  assert.ok(!pids.includes(r.pid!), 'numakit is not');
});

test('"no permission" says why for who read /proc: root is not told to run as root', async () => {
  const { noPermissionWhy } = await import('../../../src/render/stat_procs.js');
  assert.match(noPermissionWhy('user'), /run numakit as root/);
  assert.doesNotMatch(noPermissionWhy('root'), /run numakit as root/);
  assert.match(noPermissionWhy('root'), /ptrace restriction .* hidepid/);
  assert.match(noPermissionWhy('snapshot'), /snapshot was taken without permission/);
});
