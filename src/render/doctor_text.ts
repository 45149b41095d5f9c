// `numakit doctor` as text: findings grouped by severity, most serious first; each with its
// evidence, why, and the fix: "now" and "persist" lines are commands (pasted top to bottom they
// work, and again), "by hand" lines are for a person. Passed checks only with verbose; "not checked" always (never a
// silent OK), one line each. Colour only when asked (the CLI passes ctx.color). Pure.
import { isProblem, SEVERITY_ORDER, type Finding, type Severity } from '../model/finding.js';

export interface DoctorRenderOptions {
  readonly profile: string;
  /** How the profile's placement was decided (bound/unpinned, given or detected), one line. */
  readonly placement?: string;
  /** What was examined: "this machine", "example spark-2s", a snapshot path. */
  readonly target: string;
  readonly verbose?: boolean;
  readonly color?: boolean;
}

const COLOURS: Record<Severity, string> = {
  critical: '31;1',
  warning: '33;1',
  info: '36',
  'not-checked': '2',
  pass: '32',
};
const HEADINGS: Record<Severity, string> = {
  critical: 'CRITICAL',
  warning: 'WARNING',
  info: 'INFO',
  'not-checked': 'NOT CHECKED',
  pass: 'PASSED',
};

function paint(on: boolean | undefined, code: string, s: string): string {
  return on ? `\x1b[${code}m${s}\x1b[0m` : s;
}

function renderProblem(f: Finding, o: DoctorRenderOptions): string[] {
  if (!isProblem(f)) return [];
  const lines = [`  ${paint(o.color, COLOURS[f.severity], `[${f.id}]`)} ${f.title}`];
  for (const e of f.evidence) lines.push(`      ${e.path}: ${e.value}`);
  lines.push(`    why: ${f.why}`);
  for (const r of f.fix.runtime) lines.push(`    now: ${r}`);
  for (const p of f.fix.persistent) lines.push(`    persist: ${p}`);
  for (const m of f.fix.manual) lines.push(`    by hand: ${m}`);
  return lines;
}

function renderOther(f: Finding, o: DoctorRenderOptions): string[] {
  if (f.severity === 'not-checked')
    return [`  ${paint(o.color, COLOURS[f.severity], `[${f.id}]`)} ${f.title}: ${f.reason}`];
  if (f.severity === 'pass') return [`  ${paint(o.color, COLOURS.pass, `[${f.id}]`)} ${f.title}`];
  return [];
}

export function countBySeverity(findings: readonly Finding[]): Record<Severity, number> {
  const c: Record<Severity, number> = { critical: 0, warning: 0, info: 0, 'not-checked': 0, pass: 0 };
  for (const f of findings) c[f.severity]++;
  return c;
}

export function summaryLine(findings: readonly Finding[]): string {
  const c = countBySeverity(findings);
  return `${c.critical} critical, ${c.warning} warning, ${c.info} info, ${c['not-checked']} not checked, ${c.pass} passed`;
}

export function renderDoctorText(findings: readonly Finding[], o: DoctorRenderOptions): string {
  const out = [
    `numakit doctor: ${o.target}, profile ${o.profile}${o.placement === undefined ? '' : ` (placement ${o.placement})`}`,
  ];
  for (const sev of SEVERITY_ORDER) {
    const group = findings.filter((f) => f.severity === sev);
    if (group.length === 0 || (sev === 'pass' && !o.verbose)) continue;
    out.push('', paint(o.color, COLOURS[sev], `${HEADINGS[sev]} (${group.length})`));
    for (const f of group) {
      out.push(...(isProblem(f) ? renderProblem(f, o) : renderOther(f, o)));
      if (isProblem(f)) out.push('');
    }
    if (out[out.length - 1] === '') out.pop();
  }
  out.push('', `${summaryLine(findings)}${o.verbose ? '' : ' (-v lists the passed checks)'}`);
  return out.join('\n') + '\n';
}
