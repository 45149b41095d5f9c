// numakit with the tools operators already run, in one 2-node guest: Debian's tuned (its daemon on a
// D-Bus system bus started in the guest; tuned-adm verify needs the daemon) activates the profile
// apply --persist /etc --yes writes, verifies it, and rollback puts the previous profile back.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sectionOk } from './assert.js';
import { NUMAKIT } from './numakit.js';
import { runSections, type SectionsRun } from './sections.js';
import { TWO_NODE } from './topologies.js';

const THP = '/sys/kernel/mm/transparent_hugepage/enabled';
const SECTIONS = {
  tuned: `set -e
mkdir -p /run/dbus; dbus-daemon --system --fork
tuned --daemon
for i in $(seq 1 200); do tuned-adm active >/dev/null 2>&1 && break; sleep 0.3; done
tuned-adm profile balanced
echo 60 > /proc/sys/vm/swappiness; echo always > ${THP}
echo "before: $(cat /etc/tuned/active_profile) swappiness $(cat /proc/sys/vm/swappiness) thp $(cat ${THP})"
${NUMAKIT} apply --profile database --placement bound --persist /etc --yes --state-dir /tmp/st
echo "active: $(cat /etc/tuned/active_profile)"
cat /etc/tuned/numakit-database/tuned.conf
tuned-adm verify && echo VERIFIED
echo "live: swappiness $(cat /proc/sys/vm/swappiness) thp $(cat ${THP})"
${NUMAKIT} rollback --state-dir /tmp/st
echo "after: $(cat /etc/tuned/active_profile) swappiness $(cat /proc/sys/vm/swappiness) thp $(cat ${THP})"
test ! -e /etc/tuned/numakit-database/tuned.conf && echo PROFILE-REMOVED`,
};

describe('tuned in a 2node guest', () => {
  let run: SectionsRun;
  before(async () => {
    run = await runSections(TWO_NODE, SECTIONS, { timeoutMs: 400_000 });
  });
  after(() => run?.cleanup());

  it('apply --persist /etc --yes writes the profile with tuned plugins, activates it, verify passes; rollback restores', () => {
    const s = sectionOk(run, 'tuned');
    assert.match(s.stdout, /^before: balanced swappiness 60 thp \[always\] madvise never$/m);
    assert.match(s.stdout, /tuned profile: balanced -> numakit-database/);
    assert.match(s.stdout, /^active: numakit-database$/m);
    assert.match(s.stdout, /^include=latency-performance$/m);
    assert.match(s.stdout, /^\[vm\]\n#.*\ntransparent_hugepages=madvise$/m);
    assert.match(s.stdout, /^\[sysctl\]\n/m);
    assert.match(s.stdout, /^VERIFIED$/m);
    assert.match(s.stdout, /^live: swappiness 10 thp always \[madvise\] never$/m);
    assert.match(s.stdout, /^after: balanced swappiness 60 thp \[always\] madvise never$/m);
    assert.match(s.stdout, /^PROFILE-REMOVED$/m);
  });
});
