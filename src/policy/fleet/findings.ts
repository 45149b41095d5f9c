// Findings x hosts: for each finding id, the hosts where doctor raised it, most serious first,
// then by how many hosts have it. "pass" is left out; "not checked" rows say which hosts lacked
// the data. Pure.
import { severityRank, type Severity } from '../../model/finding.js';
import type { FindingRow, HostFinding } from '../../model/fleet.js';

export function findingRows(hosts: readonly { host: string; findings: readonly HostFinding[] }[]): FindingRow[] {
  const rows = new Map<string, { id: string; rule: string; severity: Severity; title: string; hosts: string[] }>();
  for (const h of hosts) {
    for (const f of h.findings) {
      if (f.severity === 'pass') continue;
      const key = `${f.severity}\0${f.id}`;
      const row = rows.get(key) ?? { id: f.id, rule: f.rule, severity: f.severity, title: f.title, hosts: [] };
      if (!row.hosts.includes(h.host)) row.hosts.push(h.host);
      rows.set(key, row);
    }
  }
  return [...rows.values()]
    .map((r) => ({ ...r, hosts: r.hosts.sort() }))
    .sort(
      (a, b) =>
        severityRank(a.severity) - severityRank(b.severity) ||
        b.hosts.length - a.hosts.length ||
        a.id.localeCompare(b.id),
    );
}
