// IRQ affinity for each NIC: its MSI IRQs (looked up when the script runs, since IRQ numbers
// change across reboots and driver reloads) go to the CPUs of the NIC's own node.
export interface NicPin {
  readonly name: string;
  readonly node: number;
  readonly cpuList: string;
}

export function renderIrqScript(header: string, pins: readonly NicPin[]): string {
  return `${header.trimEnd()}
# irqbalance moves IRQs back: stop it first (systemctl disable --now irqbalance) or list these
# IRQs in its IRQBALANCE_BANNED_CPULIST/--banirq configuration.

pin_nic_irqs() {
  local iface="$1" cpus="$2" path irq pinned=0
  for path in /sys/class/net/"$iface"/device/msi_irqs/*; do
    [[ -e "$path" ]] || break
    irq="\${path##*/}"
    [[ -w "/proc/irq/$irq/smp_affinity_list" ]] || continue
    # Kernel-managed IRQs (many NVMe and some NIC queues) refuse writes: leave those as they are.
    if echo "$cpus" > "/proc/irq/$irq/smp_affinity_list" 2>/dev/null; then
      pinned=$((pinned + 1))
    else
      echo "irq $irq ($iface): affinity is managed by the kernel; left as is" >&2
    fi
  done
  echo "$iface: $pinned IRQs -> CPUs $cpus"
}

${pins.map((p) => `pin_nic_irqs ${p.name} ${p.cpuList}   # node ${p.node}`).join('\n')}
`;
}
