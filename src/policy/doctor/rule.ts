// The shape of a doctor rule: a pure function of the gathered input and the workload profile.
import type { DoctorInput } from '../../model/doctor_input.js';
import type { Finding } from '../../model/finding.js';
import type { Profile } from './profiles.js';

export interface Rule {
  /** Stable id, also the prefix of its findings' ids ("thp", "thp/defrag"). */
  readonly id: string;
  /** Its number in docs/doctor.md's list of rules. */
  readonly number: number;
  /** What it checks, for docs and `--list`. */
  readonly title: string;
  readonly check: (input: DoctorInput, profile: Profile) => Finding[];
}
