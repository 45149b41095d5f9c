// Doctor's findings for the exporter and the dashboard, re-evaluated at most every
// --doctor-interval: a doctor run reads every large process's numa_maps and every device's
// IRQs, far more than a scrape should. A scrape serves the last run; a stale one starts the
// next run after the scrape has answered (setImmediate), so a scrape never waits for it.
import { gatherDoctorInput } from '../../discover/doctor_input.js';
import { isProblem, type Finding, type Problem } from '../../model/finding.js';
import { profileByName } from '../../policy/doctor/profiles.js';
import { runDoctor } from '../../policy/doctor/rules.js';
import type { SysRoot } from '../../sysfs/root.js';
import { family, s, type Family } from '../exposition.js';
import { gapReason, type GapReason } from './context.js';

export interface DoctorRun {
  /** Wall-clock ms when the run finished. */
  readonly at: number;
  readonly seconds: number;
  readonly problems: readonly Problem[];
  /** Rules that could not look (not-checked), by id. */
  readonly notChecked: readonly string[];
  /** Why the last run failed as a whole, if it did (the previous findings are kept). */
  readonly failed: GapReason | null;
}

export class DoctorCache {
  private last: DoctorRun | null = null;
  private running: Promise<void> | null = null;

  constructor(private readonly root: SysRoot, private readonly intervalMs: number, private readonly clock: () => number = Date.now) {}

  get run(): DoctorRun | null {
    return this.last;
  }

  /** Runs now unless a run is going or the last is fresh; resolves when it is done. */
  refresh(): Promise<void> {
    if (this.running !== null) return this.running;
    if (this.last !== null && this.clock() - this.last.at < this.intervalMs) return Promise.resolve();
    this.running = this.evaluate().finally(() => (this.running = null));
    return this.running;
  }

  /** After the current scrape has answered: start a run if the last one is stale. */
  refreshLater(): void {
    setImmediate(() => void this.refresh());
  }

  private async evaluate(): Promise<void> {
    const t0 = this.clock();
    try {
      const findings: Finding[] = runDoctor(await gatherDoctorInput(this.root), profileByName('general'));
      this.last = {
        at: this.clock(), seconds: (this.clock() - t0) / 1000, failed: null,
        problems: findings.filter(isProblem), notChecked: findings.filter((f) => f.severity === 'not-checked').map((f) => f.id),
      };
    } catch (e) {
      this.last = { at: this.clock(), seconds: (this.clock() - t0) / 1000, problems: this.last?.problems ?? [], notChecked: this.last?.notChecked ?? [], failed: gapReason(e) };
    }
  }
}

export function doctorFamilies(run: DoctorRun | null): Family[] {
  if (run === null) return [];
  const seen = new Set<string>();
  const findings = run.problems.filter((p) => {
    const k = `${p.rule}\0${p.severity}`;
    return !seen.has(k) && seen.add(k);
  });
  const count = (sev: string) => run.problems.filter((p) => p.severity === sev).length;
  return [
    family('numakit_doctor_finding', 'gauge', 'A doctor rule found a problem of this severity at its last run (numakit doctor --profile general)', findings.map((p) => s(1, { rule: p.rule, severity: p.severity }))),
    family('numakit_doctor_findings', 'gauge', 'Doctor findings by severity at the last run', ['critical', 'warning', 'info'].map((sev) => s(count(sev), { severity: sev }))),
    family('numakit_doctor_not_checked', 'gauge', 'Doctor checks that lacked their data at the last run', [s(run.notChecked.length)]),
    family('numakit_doctor_last_run_timestamp_seconds', 'gauge', 'When doctor last ran (Unix time)', [s(run.at / 1000)]),
    family('numakit_doctor_last_run_duration_seconds', 'gauge', 'How long the last doctor run took', [s(run.seconds)]),
    family('numakit_doctor_last_run_success', 'gauge', 'Whether the last doctor run completed (0: it failed and the findings before it are shown)', [s(run.failed === null ? 1 : 0)]),
  ];
}
