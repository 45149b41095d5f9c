// systemd unit files and drop-ins from ordered sections. Values are already validated by the
// planner's options (no metacharacters), so nothing is quoted here.
export type UnitEntry = readonly [key: string, value: string | number];

export interface UnitSection {
  readonly name: 'Unit' | 'Service' | 'Install';
  readonly entries: readonly UnitEntry[];
}

export function renderUnit(comment: string[], sections: readonly UnitSection[]): string {
  const head = comment.map((l) => `# ${l}`.trimEnd());
  const body = sections
    .filter((s) => s.entries.length > 0)
    .map((s) => [`[${s.name}]`, ...s.entries.map(([k, v]) => `${k}=${v}`)].join('\n'));
  return `${[...head, ...(head.length > 0 ? [''] : []), body.join('\n\n')].join('\n')}\n`;
}

/** The NUMA lines of a unit or drop-in (systemd >= 243: NUMAPolicy=, NUMAMask=). */
export function numaEntries(
  policy: 'bind' | 'preferred' | 'interleave',
  mask: string,
  cpuList: string | null,
): UnitEntry[] {
  const out: UnitEntry[] = [
    ['NUMAPolicy', policy],
    ['NUMAMask', mask],
  ];
  if (cpuList !== null) out.push(['CPUAffinity', cpuList]);
  return out;
}

/** The numactl prefix for systemd older than 243 (no NUMAPolicy=). */
export function numactlPrefix(
  policy: 'bind' | 'preferred' | 'interleave',
  mask: string,
  cpuList: string | null,
): string {
  if (policy === 'interleave') return `/usr/bin/numactl --interleave=${mask}`;
  if (policy === 'preferred') return `/usr/bin/numactl --preferred=${mask}`;
  return cpuList === null
    ? `/usr/bin/numactl --cpunodebind=${mask} --membind=${mask}`
    : `/usr/bin/numactl --physcpubind=${cpuList} --membind=${mask}`;
}
