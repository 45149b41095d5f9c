// Pages per node in /proc/PID/numa_maps ("N<node>=<pages>" on each mapping). Pure; unit-tested.

/** Pages per node summed over mappings; `anonOnly` counts only anonymous memory (lines with anon=). */
export function pagesPerNode(numaMaps: string, opts: { anonOnly?: boolean } = {}): Record<number, number> {
  const out: Record<number, number> = {};
  for (const line of numaMaps.split('\n')) {
    if (opts.anonOnly && !/\banon=\d+/.test(line)) continue;
    for (const m of line.matchAll(/\bN(\d+)=(\d+)/g)) out[Number(m[1])] = (out[Number(m[1])] ?? 0) + Number(m[2]);
  }
  return out;
}

/** The "Cpus_allowed_list:" of /proc/PID/status as CPU ids. */
export function cpusAllowed(status: string): number[] {
  const list = /^Cpus_allowed_list:\s*(.*)$/m.exec(status)?.[1]?.trim() ?? '';
  return list
    .split(',')
    .filter(Boolean)
    .flatMap((r) => {
      const [a = 0, b = a] = r.split('-').map(Number);
      return Array.from({ length: b - a + 1 }, (_, i) => a + i);
    });
}
