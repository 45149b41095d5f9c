// `numakit doctor --json`: schemaVersion 1. `host` is the host name of the machine read (null
// when the tree has no proc/sys/kernel/hostname); `placement` how the profile's placement was
// decided. Every finding has the same keys:
// id, rule, severity, title, evidence [{path, value}], why, fix {runtime, persistent, manual},
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
    fix: isProblem(f) ? f.fix : { runtime: [], persistent: [], manual: [] },
    changes: isProblem(f) ? f.changes : [],
    ...(f.severity === 'not-checked' ? { reason: f.reason } : {}),
  };
}

/** `warnings`: files that exist but could not be used (their checks say "not checked"). */
export function renderDoctorJson(
  findings: readonly Finding[],
  o: { profile: string; placement?: string; target: string; host?: string | null; warnings?: readonly string[] },
): string {
  const placement = o.placement === undefined ? {} : { placement: o.placement };
  const doc = {
    schemaVersion: 1,
    target: o.target,
    host: o.host ?? null,
    profile: o.profile,
    ...placement,
    summary: countBySeverity(findings),
    findings: findings.map(findingJson),
    warnings: o.warnings ?? [],
  };
  return JSON.stringify(doc, null, 2) + '\n';
}
