// `numakit doctor --json`: schemaVersion 1. `host` is the host name of the machine read (null
// when the tree has no proc/sys/kernel/hostname). Every finding has the same keys:
// id, rule, severity, title, evidence [{path, value}], why, fix {runtime, persistent},
// changes (apply's Change model; [] when a person must act), reason (only "not checked"). Pure.
import { isProblem, type Finding } from '../model/finding.js';
import { countBySeverity } from './doctor_text.js';

export function findingJson(f: Finding): Record<string, unknown> {
  return {
    id: f.id,
    rule: f.rule,
    severity: f.severity,
    title: f.title,
    evidence: f.evidence,
    why: f.why,
    fix: isProblem(f) ? f.fix : { runtime: [], persistent: [] },
    changes: isProblem(f) ? f.changes : [],
    ...(f.severity === 'not-checked' ? { reason: f.reason } : {}),
  };
}

export function renderDoctorJson(findings: readonly Finding[], o: { profile: string; target: string; host?: string | null }): string {
  return JSON.stringify({ schemaVersion: 1, target: o.target, host: o.host ?? null, profile: o.profile, summary: countBySeverity(findings), findings: findings.map(findingJson) }, null, 2) + '\n';
}
