// Reading a `numakit doctor --json` file (schemaVersion 1) for a fleet report: only the fields
// the report uses are required; another schema version is refused by name.
import { z } from 'zod';
import { NumakitError } from '../../model/errors.js';
import type { HostFinding } from '../../model/fleet.js';

const FindingSchema = z.object({
  id: z.string(),
  rule: z.string(),
  severity: z.enum(['critical', 'warning', 'info', 'pass', 'not-checked']),
  title: z.string(),
});

const DoctorSchema = z.object({
  schemaVersion: z.literal(1),
  host: z.string().min(1).nullable().optional(),
  profile: z.string(),
  findings: z.array(FindingSchema),
});

export interface DoctorReport {
  readonly host: string | null;
  readonly profile: string;
  readonly findings: HostFinding[];
}

export function parseDoctorJson(text: string, file: string): DoctorReport {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new NumakitError(`${file}: not JSON: ${(e as Error).message}`);
  }
  const version = (raw as { schemaVersion?: unknown } | null)?.schemaVersion;
  if (typeof raw !== 'object' || raw === null || !('findings' in raw))
    throw new NumakitError(`${file}: not a numakit doctor --json report (no findings)`);
  if (version !== 1)
    throw new NumakitError(
      `${file}: doctor --json schemaVersion ${JSON.stringify(version)}; this numakit reads schemaVersion 1`,
    );
  const r = DoctorSchema.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new NumakitError(`${file}: not a numakit doctor --json report: ${i.path.join('.') || '(top)'}: ${i.message}`);
  }
  return {
    host: r.data.host ?? null,
    profile: r.data.profile,
    findings: r.data.findings.map((f) => ({ id: f.id, rule: f.rule, severity: f.severity, title: f.title })),
  };
}
