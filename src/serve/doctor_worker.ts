// Doctor's run for numakit serve, on a worker thread: gathering its input reads every large
// process's numa_maps and every device's IRQs with synchronous file reads, which would hold
// the server's event loop (scrapes, the dashboard, SIGTERM) for as long as they take.
// Receives the root; posts back the findings (plain data), or the error's gap reason with its
// name, message and stack (a worker's Error does not cross postMessage with its class).
import { parentPort, workerData } from 'node:worker_threads';
import { gatherDoctorInput } from '../discover/doctor_input.js';
import { doctorProfile } from '../policy/doctor/profiles.js';
import { runDoctor } from '../policy/doctor/rules.js';
import type { SysRoot } from '../sysfs/root.js';
import { gapReason } from './collect/context.js';
import { workerError } from './collect/doctor.js';

// No top-level await: the single executable bundles this entry as a CommonJS script.
async function main(root: SysRoot): Promise<void> {
  try {
    const input = await gatherDoctorInput(root);
    parentPort!.postMessage({
      ok: true,
      findings: runDoctor(input, doctorProfile({ klass: 'general', alias: null }, input)),
    });
  } catch (e) {
    parentPort!.postMessage({ ok: false, reason: gapReason(e), error: workerError(e) });
  }
}
void main(workerData as SysRoot);
