// `numakit doctor --markdown`: a report to paste into a ticket. Pure.
import { isProblem, SEVERITY_ORDER, type Finding } from '../model/finding.js';
import { summaryLine, type DoctorRenderOptions } from './doctor_text.js';

const TITLES = {
  critical: 'Critical',
  warning: 'Warnings',
  info: 'Information',
  'not-checked': 'Not checked',
  pass: 'Passed',
} as const;

function code(s: string): string {
  return '`' + s.replace(/`/g, "'") + '`';
}

function problem(f: Finding): string[] {
  if (!isProblem(f)) return [];
  const lines = [`### ${f.title}`, '', `\`${f.id}\` · ${f.severity}`, '', `**Why:** ${f.why}`, '', '**Evidence**', ''];
  for (const e of f.evidence) lines.push(`- ${code(e.path)}: ${code(e.value)}`);
  if (f.fix.runtime.length > 0) lines.push('', '**Fix now**', '', '```sh', ...f.fix.runtime, '```');
  if (f.fix.persistent.length > 0) lines.push('', '**Make it persistent**', '', '```sh', ...f.fix.persistent, '```');
  if (f.fix.manual.length > 0) lines.push('', '**By hand**', '', ...f.fix.manual.map((m) => `- ${m}`));
  lines.push('');
  return lines;
}

export function renderDoctorMarkdown(findings: readonly Finding[], o: DoctorRenderOptions): string {
  const out = [
    `# numakit doctor: ${o.target}`,
    '',
    `Profile **${o.profile}**${o.placement === undefined ? '' : ` (placement ${o.placement})`}: ${summaryLine(findings)}.`,
    '',
  ];
  for (const sev of SEVERITY_ORDER) {
    const group = findings.filter((f) => f.severity === sev);
    if (group.length === 0 || (sev === 'pass' && !o.verbose)) continue;
    out.push(`## ${TITLES[sev]} (${group.length})`, '');
    if (sev === 'not-checked')
      out.push(...group.map((f) => `- \`${f.id}\` ${f.title}: ${f.severity === 'not-checked' ? f.reason : ''}`), '');
    else if (sev === 'pass') out.push(...group.map((f) => `- \`${f.id}\` ${f.title}`), '');
    else for (const f of group) out.push(...problem(f));
  }
  return out.join('\n').replace(/\n+$/, '') + '\n';
}
