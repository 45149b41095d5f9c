// Shared pieces of the fleet report renderers. Pure.
import type { FleetReport } from '../model/fleet.js';

/** "w1, w2, w3 (+12 more)": host lists in text views stay one line. */
export function hostList(hosts: readonly string[], max = 12): string {
  if (hosts.length <= max) return hosts.join(', ');
  return `${hosts.slice(0, max).join(', ')} (+${hosts.length - max} more)`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The report's first line: how many hosts, inputs not used, the profiles findings were judged by. */
export function headline(r: FleetReport): string {
  const profiles =
    r.profiles.length === 0 ? '' : `; doctor profile${r.profiles.length > 1 ? 's' : ''} ${r.profiles.join(', ')}`;
  const unused = r.problems.length > 0 ? `, ${plural(r.problems.length, 'input')} not used` : '';
  return `fleet report: ${plural(r.hosts.length, 'host')}${unused}${profiles}`;
}

/** A setting's line: "never on 3 of 4; always on w3", or with no majority every value and its hosts. */
export function settingLine(o: FleetReport['outliers'][number], max = 12): string {
  if (o.hasMajority) return `${o.majority} on ${o.majorityCount} of ${o.known}; ${outlierText(o, max)}`;
  return `no majority: ${o.majority} on ${hostList(o.commonHosts, max)}; ${outlierText(o, max)}`;
}

/** Outlier values grouped: "always on w3, w9; madvise on w4". */
export function outlierText(o: FleetReport['outliers'][number], max = 12): string {
  const byValue = new Map<string, string[]>();
  for (const x of o.outliers) byValue.set(x.value, [...(byValue.get(x.value) ?? []), x.host]);
  return [...byValue].map(([v, hosts]) => `${v} on ${hostList(hosts, max)}`).join('; ');
}
