// The systemd guest's pieces that need no guest: the units the harness hands the initramfs, and
// the init's branch that starts systemd with them (the guest itself: systemd_unit.lab.test.ts).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { needTools } from '../helpers/tools.js';
import { INIT_SCRIPT } from './initramfs.js';
import {
  LAB_MASKED_UNITS,
  LAB_TARGET,
  LAB_UNITS,
  SHARE_MASK_FILE,
  SHARE_UNITS_DIR,
  writeLabUnits,
} from './systemd_guest.js';

function withShare(fn: (share: string) => void): void {
  const share = mkdtempSync(join(tmpdir(), 'numakit-lab-systemd-'));
  try {
    fn(share);
  } finally {
    rmSync(share, { recursive: true, force: true });
  }
}

it('writeLabUnits puts the target, its service and the mask list where the init looks', (t) => {
  if (!needTools(t, 'systemd-analyze')) return; // writeLabUnits refuses a host without systemd
  withShare((share) => {
    writeLabUnits(share);
    assert.deepEqual(readdirSync(join(share, SHARE_UNITS_DIR)).sort(), Object.keys(LAB_UNITS).sort());
    assert.deepEqual(readFileSync(join(share, SHARE_MASK_FILE), 'utf8').trim().split('\n'), [...LAB_MASKED_UNITS]);
  });
});

it('the init starts systemd on the overlay root with the lab target only when the share holds units', () => {
  const branch = INIT_SCRIPT.slice(INIT_SCRIPT.indexOf(`if [ -d $R/run/lab/${SHARE_UNITS_DIR} ]`));
  assert.match(branch, new RegExp(`exec switch_root \\$R /lib/systemd/systemd --unit=${LAB_TARGET} `));
  assert.ok(branch.indexOf('switch_root') < branch.indexOf('chroot $R /bin/bash /run/lab/run.sh'));
  assert.match(LAB_UNITS[LAB_TARGET]!, /^Requires=numakit-lab\.service$/m);
  assert.match(LAB_UNITS['numakit-lab.service']!, /^SuccessAction=poweroff-immediate$/m);
  assert.match(LAB_UNITS['numakit-lab.service']!, /^FailureAction=poweroff-immediate$/m);
});

it('systemd-analyze verify accepts the lab units', (t) => {
  if (!needTools(t, 'systemd-analyze')) return;
  withShare((share) => {
    writeLabUnits(share);
    const dir = join(share, SHARE_UNITS_DIR);
    const r = spawnSync('systemd-analyze', ['verify', ...Object.keys(LAB_UNITS).map((u) => join(dir, u))], {
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /numakit-lab/, r.stderr);
  });
});
