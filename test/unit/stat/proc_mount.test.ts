// How /proc is mounted, from mountinfo: hidepid's names (5.8+) and numbers, the mount this
// process sees (the last at /proc), and nothing said without a proc mount there.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseMountinfo } from '../../../src/sysfs/mountinfo.js';
import { procHidingOf } from '../../../src/sysfs/proc_mount.js';

const line = (id: number, point: string, fstype: string, superOptions: string) =>
  `${id} 1 0:${id} / ${point} rw,nosuid - ${fstype} ${fstype} ${superOptions}\n`;

test('hidepid of the /proc mount this process sees', () => {
  for (const [opts, hiding] of [
    ['rw', null],
    ['rw,hidepid=invisible', 'invisible'],
    ['rw,hidepid=2', 'invisible'],
    ['rw,hidepid=ptraceable', 'invisible'],
    ['rw,hidepid=noaccess', 'noaccess'],
    ['rw,hidepid=1', 'noaccess'],
    ['rw,hidepid=off', null],
  ] as const)
    assert.equal(procHidingOf(parseMountinfo(line(22, '/proc', 'proc', opts))), hiding, opts);
  // the last mount at /proc is the one seen (a private /proc over the host's)
  const stacked = line(22, '/proc', 'proc', 'rw') + line(66, '/proc', 'proc', 'rw,hidepid=invisible');
  assert.equal(procHidingOf(parseMountinfo(stacked)), 'invisible');
  assert.equal(procHidingOf(parseMountinfo(line(30, '/sys/fs/cgroup', 'cgroup2', 'rw,hidepid=2'))), null);
});
