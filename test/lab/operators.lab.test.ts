// numakit with the tools operators already run, in one 2-node guest: Debian's tuned (its daemon on a
// D-Bus system bus started in the guest; tuned-adm verify needs the daemon) activates the profile
// apply --persist /etc --yes writes, verifies it, and rollback puts the previous profile back;
// irqbalance keeps running while apply pins IRQs, steered off them through its socket, and the
// boot script of --persist finds a device's IRQs by its PCI address when the planned numbers are stale.
// The guest's devices are the two virtio-pci functions of the 9p shares (numa_node -1: no profile
// pins them, so the changes come from a change file). Access locality: two busy processes on node 0's
// CPUs with NUMA balancing on, one whose cpuset allows only node 1's memory (bound remote: the
// kernel cannot migrate its pages to node 0, its hinting faults stay remote), one only node 0's.
// The PMU path is not here: TCG has no PMU.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sectionOk } from './assert.js';
import { NUMAKIT } from './numakit.js';
import { runSections, type SectionsRun } from './sections.js';
import { TWO_NODE } from './topologies.js';

const THP = '/sys/kernel/mm/transparent_hugepage/enabled';
const BANNED = `python3 -c "import socket,glob; s=socket.socket(socket.AF_UNIX); s.connect(glob.glob('/run/irqbalance/*.sock')[0]); s.sendall(b'setup'); print(s.recv(65536).decode())"`;
const IRQ_PERSIST = `import { renderIrqPersist } from '${process.cwd()}/dist/render/irq_persist.js';
import { mkdirSync, writeFileSync } from 'node:fs';
const [pci, cpus] = process.argv.slice(2);
// Planned on a boot where the device's IRQ was 999: stale now.
const pin = { kind: 'irq-affinity', target: 999, value: cpus, device: 'virtio1', pci, reason: 'lab' };
for (const f of renderIrqPersist([pin], true)) {
  mkdirSync('/tmp/p/' + f.path.replace(/\\/[^/]*$/, ''), { recursive: true });
  writeFileSync('/tmp/p/' + f.path, f.text);
}`;
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
  irqbalance: `set -e
mkdir -p /run/irqbalance
# With --debug, a line of dashes as each pass begins, written as it happens (stdbuf): the wait
# after the ban counts passes instead of sleeping.
stdbuf -oL irqbalance --foreground --debug > /tmp/irqbalance.log 2>&1 & ib=$!
passes() { local n=0 l; while IFS= read -r l; do if [[ $l == -----* ]]; then n=$((n + 1)); fi; done < /tmp/irqbalance.log; echo $n; }
# Until K more passes have begun, 60 s at most.
await_passes() { local n=$(( $(passes) + $1 )) start=$SECONDS; while [ "$(passes)" -lt $n ] && [ $((SECONDS - start)) -lt 60 ]; do sleep 0.25; done; }
trap 'kill $ib 2>/dev/null' EXIT
for i in $(seq 1 100); do ls /run/irqbalance/*.sock >/dev/null 2>&1 && break; sleep 0.2; done
dev=$(for d in /sys/bus/pci/devices/*; do [ -n "$(ls "$d/msi_irqs" 2>/dev/null)" ] && echo "\${d##*/}"; done | tail -1)
irqs=$(ls /sys/bus/pci/devices/$dev/msi_irqs | sort -n)
list=$(echo $irqs | tr ' ' ',')
# Once irqbalance has placed them (off the default 0-3), apply pins each to the package it did not
# choose for it (it may spread them over both): irqbalance, unless banned, would put them back at
# its next pass. The boot script below pins the device's IRQs to the first one's.
first=\${list%%,*}
for i in $(seq 1 100); do cur=$(cat /proc/irq/$first/smp_affinity_list); [ "$cur" != 0-3 ] && break; sleep 0.3; done
case $cur in 2|3|2-3) want=0-1; other=2-3;; *) want=2-3; other=0-1;; esac
echo "irqbalance placed irq $first on $cur"
echo "device $dev irqs $list want $want other $other"
{ echo 'changes:'; echo "  - {kind: irqbalance-ban, target: irqbalance, value: '$list'}"
  for i in $irqs; do
    case $(cat /proc/irq/$i/smp_affinity_list) in 2|3|2-3) w=0-1;; *) w=2-3;; esac
    echo "irq $i want $w" >&2; echo "  - {kind: irq-affinity, target: $i, value: $w}"
  done; } > /tmp/ib.yaml 2>/tmp/ib.want; cat /tmp/ib.want
${NUMAKIT} apply /tmp/ib.yaml --yes --state-dir /tmp/si
echo "banned: $(${BANNED})"
# A pass begun since the ban answered (irqbalance's interval is 10 s), then its answer to a second
# query, which it gives once that pass has ended (it runs its passes and its socket's commands one
# at a time): the pass ran whole with the ban in place.
await_passes 1; ${BANNED} > /dev/null
kill -0 $ib && echo IRQBALANCE-RUNNING
for i in $irqs; do echo "after a pass: irq $i $(cat /proc/irq/$i/smp_affinity_list)"; done
${NUMAKIT} rollback --state-dir /tmp/si
echo "banned after rollback: $(${BANNED})"
kill -0 $ib && echo IRQBALANCE-STILL-RUNNING
cat > /tmp/irq_persist.mjs <<'EOF2'
${IRQ_PERSIST}
EOF2
# Rollback put them back where irqbalance had them: the boot script pins them to $want again, by PCI address.
node /tmp/irq_persist.mjs "$dev" $want
sh /tmp/p/numakit/irq-affinity.sh
for i in $irqs; do echo "boot script: irq $i $(cat /proc/irq/$i/smp_affinity_list)"; done
sh /tmp/p/numakit/irqbalance-policy.sh "/sys/devices/pci0000:00/$dev" 26
kill $ib`,
};

describe('tuned and irqbalance in a 2node guest', () => {
  let run: SectionsRun;
  before(async () => {
    run = await runSections(TWO_NODE, SECTIONS, { timeoutMs: 900_000 });
  });
  after(() => run?.cleanup());

  it('irqbalance keeps running, steered off the IRQs apply pins (they stay put); rollback unbans; the boot script follows the device', () => {
    const s = sectionOk(run, 'irqbalance');
    const [, dev, list, want, other] = /^device (\S+) irqs (\S+) want (\S+) other (\S+)$/m.exec(s.stdout) ?? [];
    assert.ok(dev && list && want && other, s.stdout);
    assert.match(s.stdout, /^ *set \/proc\/irq\/\d+\/smp_affinity_list: /m);
    const irqs = list.split(',');
    assert.ok(irqs.length >= 1);
    assert.match(s.stdout, /set irqbalance banned IRQs: none -> /);
    for (const irq of irqs) {
      assert.match(s.stdout, new RegExp(`^banned: SLEEP \\d+ .*\\bIRQ ${irq} LOAD`, 'm'));
      const wantIrq = new RegExp(`^irq ${irq} want (\\S+)$`, 'm').exec(s.stdout)?.[1];
      assert.ok(wantIrq, s.stdout);
      assert.match(s.stdout, new RegExp(`^after a pass: irq ${irq} ${wantIrq}$`, 'm'));
      assert.match(s.stdout, new RegExp(`^ *restored /proc/irq/${irq}/smp_affinity_list: `, 'm'));
      assert.match(s.stdout, new RegExp(`^boot script: irq ${irq} ${want}$`, 'm'));
    }
    assert.match(s.stdout, /^IRQBALANCE-RUNNING$/m);
    assert.match(s.stdout, /^banned after rollback: SLEEP \d+ BANNED /m);
    assert.match(s.stdout, /^IRQBALANCE-STILL-RUNNING$/m);
    assert.match(s.stdout, /^ban=true$/m);
  });

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
