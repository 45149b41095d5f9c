// The boot-time form of IRQ placement (`apply --persist`), by device identity, never by IRQ number:
// MSI IRQ numbers change across boots, driver reloads and NIC resets. Each pinned device is named by
// its PCI address (its IRQs at boot are the entries of /sys/bus/pci/devices/ADDR/msi_irqs/) and by
// its name, which /proc/interrupts shows in its queues' names ("ens1f0-TxRx-3") for a device without
// one. irqbalance keeps running: its policy script (irqbalance(1), --policyscript: run once per IRQ
// with the device's sysfs path and the IRQ) answers ban=true for the pinned devices.
//   numakit/irq-affinity.sh                         resolves and pins, run by the unit below
//   systemd/system/numakit-irq-affinity.service     runs it at boot, after irqbalance
//   numakit/irqbalance-policy.sh                    irqbalance's policy script
//   systemd/system/irqbalance.service.d/90-numakit.conf   passes it to irqbalance
// Pure: the caller writes the files.
import type { IrqAffinityChange } from '../model/change.js';

export interface PersistFileText {
  /** Path relative to DIR. */
  readonly path: string;
  readonly text: string;
  /** File mode (default 0644): scripts run by irqbalance are 0755. */
  readonly mode?: number;
}

const HEADER = '# Written by numakit apply --persist; numakit rollback removes it.';
/** Where the files are once installed (DIR is laid out as /etc). */
const ETC = '/etc/numakit';

interface PinnedDevice {
  readonly pci: string;
  readonly name: string;
  readonly cpus: string;
}

/** One entry per device and CPU list, in the plan's order. */
export function pinnedDevices(irqs: readonly IrqAffinityChange[]): PinnedDevice[] {
  const out = new Map<string, PinnedDevice>();
  for (const c of irqs) {
    const d = { pci: c.pci ?? '', name: c.device ?? '', cpus: c.value };
    if (d.pci === '' && d.name === '') continue; // an IRQ of no known device: nothing to find it by at boot
    out.set(`${d.pci} ${d.name} ${d.cpus}`, d);
  }
  return [...out.values()];
}

const SAFE = /^[\w.:-]*$/;

function pinScript(devices: readonly PinnedDevice[]): string {
  for (const d of devices)
    if (!SAFE.test(d.pci) || !SAFE.test(d.name) || !/^[\d,-]+$/.test(d.cpus))
      throw new Error(`irq persist: unexpected device identity '${d.pci}' '${d.name}' '${d.cpus}'`);
  return `#!/bin/sh
${HEADER}
# Pins each device's IRQs to the CPUs of its NUMA node, finding the IRQs by device identity now:
# the PCI function's msi_irqs, else the IRQs whose /proc/interrupts names are NAME or NAME-*.
# NUMAKIT_ROOT (tests only) prefixes /sys and /proc.
root=\${NUMAKIT_ROOT:-}
status=0
set_irq() {
  if echo "$2" > "$root/proc/irq/$1/smp_affinity_list" 2>/dev/null; then
    echo "numakit-irq-affinity: $3: IRQ $1 -> CPUs $2"
  else
    echo "numakit-irq-affinity: $3: IRQ $1: cannot set CPUs $2 (a kernel-managed IRQ?)" >&2
    status=1
  fi
}
pin() {
  found=0
  if [ -n "$1" ] && [ -d "$root/sys/bus/pci/devices/$1/msi_irqs" ]; then
    for f in "$root/sys/bus/pci/devices/$1/msi_irqs/"*; do
      [ -e "$f" ] || continue
      set_irq "\${f##*/}" "$3" "$2 ($1)"
      found=$((found + 1))
    done
  fi
  if [ "$found" -eq 0 ] && [ -n "$2" ]; then
    irqs=$(awk -v n="$2" '$1 ~ /^[0-9]+:$/ { for (i = 2; i <= NF; i++) if ($i == n || index($i, n "-") == 1) { sub(":", "", $1); print $1; break } }' "$root/proc/interrupts")
    for irq in $irqs; do
      set_irq "$irq" "$3" "$2"
      found=$((found + 1))
    done
  fi
  if [ "$found" -eq 0 ]; then
    echo "numakit-irq-affinity: $2 ($1): no IRQs found (device gone or renamed?)" >&2
    status=1
  fi
}
${devices.map((d) => `pin '${d.pci}' '${d.name}' '${d.cpus}'`).join('\n')}
exit $status
`;
}

function policyScript(devices: readonly PinnedDevice[]): string {
  const pcis = [...new Set(devices.map((d) => d.pci).filter((p) => p !== ''))];
  return `#!/bin/sh
${HEADER}
# irqbalance --policyscript: called with a device's sysfs path and one of its IRQs; ban=true
# leaves the IRQs of the devices numakit pins (numakit-irq-affinity.service) to that unit.
case "\${1##*/}" in
${pcis.length === 0 ? '' : `  ${pcis.join('|')}) echo ban=true ;;\n`}esac
exit 0
`;
}

export function renderIrqPersist(irqs: readonly IrqAffinityChange[], steersIrqbalance: boolean): PersistFileText[] {
  const devices = pinnedDevices(irqs);
  if (devices.length === 0) return [];
  const unit = [
    HEADER,
    '[Unit]',
    'Description=numakit: pin device IRQs to the CPUs of their NUMA node (found by device, not IRQ number)',
    'After=irqbalance.service',
    '',
    '[Service]',
    'Type=oneshot',
    `ExecStart=/bin/sh ${ETC}/irq-affinity.sh`,
    '',
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ].join('\n');
  const files: PersistFileText[] = [
    { path: 'numakit/irq-affinity.sh', text: pinScript(devices), mode: 0o755 },
    { path: 'systemd/system/numakit-irq-affinity.service', text: unit },
  ];
  if (steersIrqbalance) {
    const args = `--policyscript=${ETC}/irqbalance-policy.sh`;
    // Debian's unit passes $IRQBALANCE_ARGS (older ones $OPTIONS); an EnvironmentFile setting the same variable wins.
    files.push(
      { path: 'numakit/irqbalance-policy.sh', text: policyScript(devices), mode: 0o755 },
      {
        path: 'systemd/system/irqbalance.service.d/90-numakit.conf',
        text: [HEADER, '[Service]', `Environment="IRQBALANCE_ARGS=${args}" "OPTIONS=${args}"`, ''].join('\n'),
      },
    );
  }
  return files;
}
