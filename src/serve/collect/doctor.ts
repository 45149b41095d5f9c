// Doctor's findings for the exporter and the dashboard, re-evaluated at most every
// --doctor-interval: a doctor run reads every large process's numa_maps and every device's
// IRQs, far more than a scrape should. A scrape serves the last run; a stale one starts the
// next run after the scrape has answered, on a worker thread (src/serve/doctor_worker.ts), so
// neither a scrape nor a signal waits for it.
import { Worker } from 'node:worker_threads';
import { seaWorker } from '../../runtime/sea_worker.js';
import { isProblem, type Finding, type Problem } from '../../model/finding.js';
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
  private worker: Worker | null = null;
  private stopped = false;
  /** When the last run finished, on the monotonic clock (a wall-clock step must not hold runs back or bring them on). */
  private lastMono = 0;

  constructor(
    private readonly root: SysRoot,
    private readonly intervalMs: number,
    private readonly clock: () => number = () => performance.now(),
    private readonly wallClock: () => number = Date.now,
    /**
     * Told why a run failed as a whole (the worker's error, rebuilt with its name, message and
     * stack): the scraper names it in one line and counts it, like a collector's error.
     */
    private readonly failed: (e: Error) => void = () => {},
  ) {}

  get run(): DoctorRun | null {
    return this.last;
  }

  /** Runs now unless a run is going or the last is fresh; resolves when it is done. */
  refresh(): Promise<void> {
    if (this.running !== null) return this.running;
    if (this.stopped || (this.last !== null && this.clock() - this.lastMono < this.intervalMs))
      return Promise.resolve();
    this.running = this.evaluate().finally(() => (this.running = null));
    return this.running;
  }

  /** After the current scrape has answered: start a run if the last one is stale. */
  refreshLater(): void {
    setImmediate(() => void this.refresh());
  }

  /** Ends a run in progress and starts no other (the server is stopping). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.worker?.terminate();
  }

  private async evaluate(): Promise<void> {
    const t0 = this.clock();
    const r = await this.inWorker();
    const seconds = (this.clock() - t0) / 1000;
    if (this.stopped) return;
    if (!r.ok) this.failed(r.error);
    this.lastMono = this.clock();
    this.last = r.ok
      ? {
          at: this.wallClock(),
          seconds,
          failed: null,
          problems: r.findings.filter(isProblem),
          notChecked: r.findings.filter((f) => f.severity === 'not-checked').map((f) => f.id),
        }
      : {
          at: this.wallClock(),
          seconds,
          problems: this.last?.problems ?? [],
          notChecked: this.last?.notChecked ?? [],
          failed: r.reason,
        };
  }

  /** One doctor run on a worker thread; the .mjs entry registers tsx when running from sources, the executable carries its own. */
  private inWorker(): Promise<WorkerResult> {
    const entry = import.meta.url.endsWith('.ts') ? '../doctor_worker_dev.mjs' : '../doctor_worker.js';
    return new Promise((resolve) => {
      const w = new Worker(seaWorker('doctor_worker') ?? new URL(entry, import.meta.url), {
        workerData: { dir: this.root.dir, isReal: this.root.isReal, label: this.root.label },
      });
      this.worker = w;
      w.once('message', (m: WorkerMessage) =>
        resolve(m.ok ? m : { ok: false, reason: m.reason, error: fromWorker(m.error) }),
      );
      w.once('error', (e) => resolve({ ok: false, reason: gapReason(e), error: e }));
      w.once('exit', (code) => {
        this.worker = null;
        resolve({
          ok: false,
          reason: 'error',
          error: new Error(`the doctor worker exited (code ${code}) without a result`),
        });
      });
    });
  }
}

/** An error as the worker posts it: structured cloning keeps neither its class nor, everywhere, its stack. */
export interface WorkerError {
  readonly name: string;
  readonly message: string;
  readonly stack?: string;
}

export function workerError(e: unknown): WorkerError {
  if (!(e instanceof Error)) return { name: 'Error', message: String(e) };
  return { name: e.name, message: e.message, ...(e.stack === undefined ? {} : { stack: e.stack }) };
}

function fromWorker(w: WorkerError | undefined): Error {
  const e = new Error(w?.message ?? 'the doctor worker gave no reason');
  e.name = w?.name ?? 'Error';
  if (w?.stack !== undefined) e.stack = w.stack;
  return e;
}

type WorkerMessage = { ok: true; findings: Finding[] } | { ok: false; reason: GapReason; error?: WorkerError };
type WorkerResult = { ok: true; findings: Finding[] } | { ok: false; reason: GapReason; error: Error };

export function doctorFamilies(run: DoctorRun | null): Family[] {
  if (run === null) return [];
  const seen = new Set<string>();
  const findings = run.problems.filter((p) => {
    const k = `${p.rule}\0${p.severity}`;
    return !seen.has(k) && seen.add(k);
  });
  const count = (sev: string) => run.problems.filter((p) => p.severity === sev).length;
  return [
    family(
      'numakit_doctor_finding',
      'gauge',
      'A doctor rule found a problem of this severity at its last run (numakit doctor --profile general)',
      findings.map((p) => s(1, { rule: p.rule, severity: p.severity })),
    ),
    family(
      'numakit_doctor_findings',
      'gauge',
      'Doctor findings by severity at the last run',
      ['critical', 'warning', 'info'].map((sev) => s(count(sev), { severity: sev })),
    ),
    family('numakit_doctor_not_checked', 'gauge', 'Doctor checks that lacked their data at the last run', [
      s(run.notChecked.length),
    ]),
    family('numakit_doctor_last_run_timestamp_seconds', 'gauge', 'When doctor last ran (Unix time)', [
      s(run.at / 1000),
    ]),
    family('numakit_doctor_last_run_duration_seconds', 'gauge', 'How long the last doctor run took', [s(run.seconds)]),
    family(
      'numakit_doctor_last_run_success',
      'gauge',
      'Whether the last doctor run completed (0: it failed and the findings before it are shown)',
      [s(run.failed === null ? 1 : 0)],
    ),
  ];
}
