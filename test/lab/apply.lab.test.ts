// numakit apply / rollback against a real kernel in a 2-node guest: apply --yes then rollback
// leaves every touched file byte-identical; an apply killed with SIGKILL half way (the test-only
// delay hook) is undone by rollback; a knob made read-only (a read-only bind mount) makes the
// apply fail and roll back what it had already changed. One boot, three sections.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sectionOk } from './assert.js';
import { NUMAKIT } from './numakit.js';
import { runSections, type SectionsRun } from './sections.js';
import { TWO_NODE } from './topologies.js';

const THP = '/sys/kernel/mm/transparent_hugepage';
// Known starting values, so every change below really changes something.
const START = `echo 1 > /proc/sys/kernel/numa_balancing; echo always > ${THP}/enabled; echo madvise > ${THP}/defrag; echo 60 > /proc/sys/vm/swappiness`;
// Every file apply may touch, with its exact content.
const SNAP = `snap() { for f in /proc/sys/kernel/numa_balancing /proc/sys/vm/zone_reclaim_mode /proc/sys/vm/swappiness ${THP}/enabled ${THP}/defrag /sys/kernel/mm/ksm/run /proc/irq/*/smp_affinity_list; do echo "== $f"; cat "$f" 2>&1; done; }`;
const CHANGES = `cat > /tmp/nk.yaml <<'EOF2'
changes:
  - {kind: sysctl, target: kernel.numa_balancing, value: 0}
  - {kind: sysfs, target: ${THP}/enabled, value: never}
  - {kind: sysctl, target: vm.swappiness, value: 10}
  - {kind: sysfs, target: ${THP}/defrag, value: never}
  - {kind: sysctl, target: vm.zone_reclaim_mode, value: 1}
EOF2`;
const WRITTEN = (dir: string) => `cat ${dir}/journal/*.json 2>/dev/null | grep -c '"state": "written"'`;

const SECTIONS = {
  roundtrip: `set -e; ${START}; ${SNAP}; snap > /tmp/before
${NUMAKIT} apply --profile latency --yes --state-dir /tmp/s1
snap > /tmp/applied; if cmp -s /tmp/before /tmp/applied; then echo 'apply changed nothing' >&2; exit 1; fi
${NUMAKIT} rollback --state-dir /tmp/s1
snap > /tmp/after; diff /tmp/before /tmp/after && echo IDENTICAL`,
  sigkill: `set -e; ${START}; ${SNAP}
${CHANGES}
snap > /tmp/before
NUMAKIT_TEST_APPLY_DELAY_MS=3000 ${NUMAKIT} apply /tmp/nk.yaml --yes --state-dir /tmp/s2 >/dev/null & pid=$!
for i in $(seq 1 300); do [ "$(${WRITTEN('/tmp/s2')})" -ge 2 ] && break; sleep 0.2; done
kill -9 $pid; wait $pid || echo "killed: $?"
echo "written before the kill: $(${WRITTEN('/tmp/s2')})"
${NUMAKIT} journal --state-dir /tmp/s2
snap > /tmp/killed; if cmp -s /tmp/before /tmp/killed; then echo 'the killed apply changed nothing' >&2; exit 1; fi
${NUMAKIT} rollback --state-dir /tmp/s2
snap > /tmp/after; diff /tmp/before /tmp/after && echo IDENTICAL`,
  readonly: `set -e; ${START}; ${SNAP}
${CHANGES}
snap > /tmp/before
mount --bind /proc/sys/vm/swappiness /proc/sys/vm/swappiness && mount -o remount,ro,bind /proc/sys/vm/swappiness
if ${NUMAKIT} apply /tmp/nk.yaml --yes --state-dir /tmp/s3; then echo "apply should have failed" >&2; exit 1; fi
umount /proc/sys/vm/swappiness
${NUMAKIT} journal --state-dir /tmp/s3
snap > /tmp/after; diff /tmp/before /tmp/after && echo IDENTICAL`,
};

describe('apply and rollback in a 2node guest', () => {
  let run: SectionsRun;
  before(async () => {
    run = await runSections(TWO_NODE, SECTIONS, { timeoutMs: 400_000 });
  });
  after(() => run?.cleanup());

  it('apply --yes changes the knobs; rollback leaves every touched file with its exact original content', () => {
    const s = sectionOk(run, 'roundtrip');
    assert.match(s.stdout, /changing \(\d+\):/);
    assert.match(s.stdout, /rolled-back/);
    assert.match(s.stdout, /IDENTICAL\n$/);
  });

  it('an apply killed with SIGKILL half way is fully undone by rollback', () => {
    const s = sectionOk(run, 'sigkill');
    assert.match(s.stdout, /killed: 137/);
    const written = Number(/written before the kill: (\d+)/.exec(s.stdout)?.[1]);
    assert.ok(written >= 2 && written < 5, `killed half way (${written} of 5 written)`);
    assert.match(s.stdout, /interrupted/);
    assert.match(s.stdout, /IDENTICAL\n$/);
  });

  it('a read-only knob fails the apply, which rolls back the changes it had made and says so', () => {
    const s = sectionOk(run, 'readonly');
    assert.match(
      s.stderr,
      /apply failed: \/proc\/sys\/vm\/swappiness: cannot write '10': .*; it had changed 2 value\(s\) \(\/sys\/kernel\/mm\/transparent_hugepage\/enabled, .*\): all rolled back/,
    );
    assert.match(s.stdout, /failed/);
    assert.match(s.stdout, /IDENTICAL\n$/);
  });
});
