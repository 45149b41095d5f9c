// numakit fleet report, as text for a terminal. Pure.
import type { FleetReport } from '../model/fleet.js';
import { headline, hostList, plural, settingLine } from './fleet_common.js';

export function renderFleetText(r: FleetReport): string {
  const out = [headline(r), ''];
  out.push(`topology classes (${r.classes.length}):`);
  for (const c of r.classes)
    out.push(`  ${plural(c.hosts.length, 'host').padEnd(10)} ${c.label}`, `             ${hostList(c.hosts)}`);
  if (r.classes.length === 0) out.push('  none: no snapshot was read');
  out.push('', `findings (${r.findings.length}):`);
  for (const f of r.findings)
    out.push(
      `  ${f.severity.padEnd(11)} ${f.id}: ${f.title}`,
      `              ${plural(f.hosts.length, 'host')}: ${hostList(f.hosts)}`,
    );
  if (r.findings.length === 0) out.push('  none');
  out.push('', `settings that differ between hosts (${r.outliers.length}):`);
  for (const o of r.outliers) out.push(`  ${o.setting}: ${settingLine(o)}`);
  if (r.outliers.length === 0) out.push('  none: every setting read is the same on every host');
  out.push('', `incomplete data (${plural(r.incomplete.length, 'host')}):`);
  for (const i of r.incomplete) out.push(`  ${i.host}: ${i.reasons.join('; ')}`);
  if (r.incomplete.length === 0) out.push('  none');
  if (r.problems.length > 0) {
    out.push('', `inputs not used (${r.problems.length}):`);
    for (const p of r.problems) out.push(`  ${p.message}`);
  }
  return out.join('\n') + '\n';
}
