// IRQ placement persisted by device identity: the boot script finds a device's IRQs by its PCI
// address (msi_irqs) or its queue names in /proc/interrupts, so a renumbering (another boot, a
// driver reload) is followed; irqbalance's policy script bans the pinned devices. The scripts run
// here with sh against fake trees (NUMAKIT_ROOT), and through shellcheck when it is installed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import type { IrqAffinityChange } from '../../../src/model/change.js';
import { renderIrqPersist } from '../../../src/render/irq_persist.js';

const pin = (irq: number, device: string, value: string, pci?: string): IrqAffinityChange => ({
  kind: 'irq-affinity',
  target: irq,
  value,
  device,
  ...(pci === undefined ? {} : { pci }),
  reason: 'r',
});
// Planned on a boot where ens1f0's queues were IRQs 120-121 and virtio0 (no PCI address known) 44.
const PLAN = [
  pin(120, 'ens1f0', '0-15', '0000:3b:00.0'),
  pin(121, 'ens1f0', '0-15', '0000:3b:00.0'),
  pin(44, 'virtio0', '2-3'),
];

function files(steer = true): Record<string, string> {
  return Object.fromEntries(renderIrqPersist(PLAN, steer).map((f) => [f.path, f.text]));
}

function tree(entries: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'numakit-irqroot-'));
  for (const [rel, text] of Object.entries(entries)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}

const affinity = (root: string, irq: number) =>
  readFileSync(join(root, `proc/irq/${irq}/smp_affinity_list`), 'utf8').trim();

function runScript(text: string, root: string, args: string[] = []) {
  const r = spawnSync('sh', ['-s', '--', ...args], {
    input: text,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, NUMAKIT_ROOT: root },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('the boot script follows a renumbering: the IRQs of the PCI function now, and by queue name without one', () => {
  // The next boot: ens1f0's queues are IRQs 300-301, 120 belongs to another device, virtio0's queues are 51-52.
  const root = tree({
    'sys/bus/pci/devices/0000:3b:00.0/msi_irqs/300': 'msix\n',
    'sys/bus/pci/devices/0000:3b:00.0/msi_irqs/301': 'msix\n',
    'proc/irq/120/smp_affinity_list': '0-31\n',
    'proc/irq/300/smp_affinity_list': '0-31\n',
    'proc/irq/301/smp_affinity_list': '0-31\n',
    'proc/irq/51/smp_affinity_list': '0-3\n',
    'proc/irq/52/smp_affinity_list': '0-3\n',
    'proc/interrupts': [
      '           CPU0       CPU1',
      ' 51:          5          0   PCI-MSIX-0000:00:03.0   1-edge      virtio0-input.0',
      ' 52:          7          0   PCI-MSIX-0000:00:03.0   2-edge      virtio0-output.0',
      ' 53:          1          0   PCI-MSIX-0000:00:04.0   1-edge      virtio01-config',
      '120:          9          0   PCI-MSIX-0000:00:05.0   0-edge      nvme0q0',
      'NMI:          0          0   Non-maskable interrupts',
      '',
    ].join('\n'),
    'proc/irq/53/smp_affinity_list': '0-3\n',
  });
  const r = runScript(files()['numakit/irq-affinity.sh']!, root);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(
    [300, 301, 51, 52, 120, 53].map((n) => affinity(root, n)),
    ['0-15', '0-15', '2-3', '2-3', '0-31', '0-3'],
  );
  assert.match(r.out, /^numakit-irq-affinity: ens1f0 \(0000:3b:00\.0\): IRQ 300 -> CPUs 0-15$/m);
});

test('the boot script names a device it cannot find and exits 1, still pinning the others', () => {
  const root = tree({
    'sys/bus/pci/devices/0000:3b:00.0/msi_irqs/300': 'msix\n',
    'proc/irq/300/smp_affinity_list': '0-31\n',
    'proc/interrupts': '           CPU0\n',
  });
  const r = runScript(files()['numakit/irq-affinity.sh']!, root);
  assert.equal(r.code, 1);
  assert.equal(affinity(root, 300), '0-15');
  assert.match(r.err, /^numakit-irq-affinity: virtio0 \(\): no IRQs found/m);
});

test("irqbalance's policy script bans the pinned PCI functions, by the device path it is given", () => {
  const f = files();
  const script = f['numakit/irqbalance-policy.sh']!;
  const root = tree({});
  assert.equal(runScript(script, root, ['/sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0', '300']).out, 'ban=true\n');
  assert.equal(runScript(script, root, ['/sys/devices/pci0000:00/0000:00:05.0', '120']).out, '');
  assert.match(
    f['systemd/system/irqbalance.service.d/90-numakit.conf']!,
    /IRQBALANCE_ARGS=--policyscript=\/etc\/numakit\/irqbalance-policy\.sh/,
  );
  assert.match(
    f['systemd/system/numakit-irq-affinity.service']!,
    /^ExecStart=\/bin\/sh \/etc\/numakit\/irq-affinity\.sh$/m,
  );
  assert.doesNotMatch(Object.values(f).join('\n'), /\b(120|121|44)\b/, 'no IRQ number is persisted');
  assert.deepEqual(Object.keys(files(false)).sort(), [
    'numakit/irq-affinity.sh',
    'systemd/system/numakit-irq-affinity.service',
  ]);
});

test('the scripts pass shellcheck (skipped without it)', (t) => {
  if (spawnSync('shellcheck', ['--version']).error) return t.skip('shellcheck is not installed');
  for (const path of ['numakit/irq-affinity.sh', 'numakit/irqbalance-policy.sh']) {
    const r = spawnSync('shellcheck', ['--shell=sh', '-'], { input: files()[path]!, encoding: 'utf8' });
    assert.equal(r.status, 0, `${path}:\n${r.stdout}`);
  }
});
