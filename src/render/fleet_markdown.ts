// numakit fleet report as Markdown, for a ticket or a wiki page. Pure.
import type { FleetReport } from '../model/fleet.js';
import { headline, hostList, outlierText, settingLine } from './fleet_common.js';

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function table(head: string[], rows: string[][]): string[] {
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
  ];
}

export function renderFleetMarkdown(r: FleetReport): string {
  const out = [`# ${headline(r).replace(/^fleet report: /, 'Fleet report: ')}`, ''];
  out.push(
    '## Topology classes',
    '',
    ...table(
      ['hosts', 'class', 'members'],
      r.classes.map((c) => [String(c.hosts.length), c.label, hostList(c.hosts, 30)]),
    ),
    '',
  );
  out.push(
    '## Findings x hosts',
    '',
    ...table(
      ['severity', 'finding', 'hosts', 'which'],
      r.findings.map((f) => [f.severity, `\`${f.id}\`: ${f.title}`, String(f.hosts.length), hostList(f.hosts, 30)]),
    ),
    '',
  );
  out.push('## Settings that differ between hosts', '');
  out.push(
    ...(r.outliers.length === 0
      ? ['Every setting read is the same on every host.']
      : table(
          ['setting', 'majority', 'differs'],
          r.outliers.map((o) => [
            o.setting,
            o.hasMajority ? `${o.majority} (${o.majorityCount} of ${o.known})` : `none (${o.known} hosts)`,
            o.hasMajority ? outlierText(o, 30) : settingLine(o, 30),
          ]),
        )),
    '',
  );
  out.push('## Incomplete data', '');
  out.push(
    ...(r.incomplete.length === 0
      ? ['None.']
      : table(
          ['host', 'why'],
          r.incomplete.map((i) => [i.host, i.reasons.join('; ')]),
        )),
    '',
  );
  if (r.problems.length > 0) out.push('## Inputs not used', '', ...r.problems.map((p) => `- ${p.message}`), '');
  return out.join('\n');
}
