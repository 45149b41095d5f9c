// The shipped systemd unit: it runs the agent, restores after it stops (also after a crash or
// SIGKILL, through ExecStopPost), and systemd-analyze accepts it where systemd is installed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { needTools } from '../../helpers/tools.js';

const UNIT = join(fileURLToPath(new URL('.', import.meta.url)), '../../../contrib/numakit-agent.service');
const text = readFileSync(UNIT, 'utf8');
const key = (k: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith(`${k}=`))
    .map((l) => l.slice(k.length + 1));

it('runs numakit agent, stops it with SIGTERM, and runs agent restore after it stops', () => {
  assert.match(key('ExecStart')[0]!, /numakit agent --state-dir \/var\/lib\/numakit \$OPTIONS$/);
  assert.match(key('ExecStopPost')[0]!, /numakit agent restore --state-dir \/var\/lib\/numakit$/);
  assert.deepEqual(key('KillSignal'), ['SIGTERM']);
  assert.deepEqual(key('StateDirectory'), ['numakit']);
});

it('is listed in package.json "files" (shipped)', () => {
  const pkg = JSON.parse(readFileSync(join(UNIT, '../../package.json'), 'utf8')) as { files: string[] };
  assert.ok(pkg.files.includes('contrib'));
});

it('systemd-analyze verify accepts it (when systemd is installed)', (t) => {
  if (!needTools(t, 'systemd-analyze')) return;
  const r = spawnSync('systemd-analyze', ['verify', UNIT], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /numakit-agent\.service/);
});
