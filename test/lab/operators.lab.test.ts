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
irqbalance --foreground > /tmp/irqbalance.log 2>&1 & ib=$!
trap 'kill $ib 2>/dev/null' EXIT
for i in $(seq 1 100); do ls /run/irqbalance/*.sock >/dev/null 2>&1 && break; sleep 0.2; done
dev=$(for d in /sys/bus/pci/devices/*; do [ -n "$(ls "$d/msi_irqs" 2>/dev/null)" ] && echo "\${d##*/}"; done | tail -1)
irqs=$(ls /sys/bus/pci/devices/$dev/msi_irqs | sort -n)
list=$(echo $irqs | tr ' ' ',')
# Once irqbalance has placed them (off the default 0-3), apply pins them to the other package's
# CPUs: irqbalance, unless banned, would put them back within its 10 s interval.
first=\${list%%,*}
for i in $(seq 1 100); do cur=$(cat /proc/irq/$first/smp_affinity_list); [ "$cur" != 0-3 ] && break; sleep 0.3; done
case $cur in 2|3|2-3) want=0-1; other=2-3;; *) want=2-3; other=0-1;; esac
echo "irqbalance placed irq $first on $cur"
echo "device $dev irqs $list want $want other $other"
{ echo 'changes:'; echo "  - {kind: irqbalance-ban, target: irqbalance, value: '$list'}"
  for i in $irqs; do echo "  - {kind: irq-affinity, target: $i, value: $want}"; done; } > /tmp/ib.yaml
${NUMAKIT} apply /tmp/ib.yaml --yes --state-dir /tmp/si
echo "banned: $(${BANNED})"
sleep 12  # irqbalance rebalances every 10 s
kill -0 $ib && echo IRQBALANCE-RUNNING
for i in $irqs; do echo "after 12 s: irq $i $(cat /proc/irq/$i/smp_affinity_list)"; done
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
      assert.match(s.stdout, new RegExp(`^after 12 s: irq ${irq} ${want}$`, 'm'));
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
