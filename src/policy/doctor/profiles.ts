// Doctor's profiles are the knowledge table's (policy/knowledge/): the workload named with
// --profile, resolved for this machine and for where its largest process is placed (given with
// --placement, or detected from the sampled processes).
import type { DoctorInput } from '../../model/doctor_input.js';
import { choosePlacement, detectPlacement } from '../knowledge/placement.js';
import type { ProfileRef } from '../knowledge/profiles.js';
import { machineFacts, resolveProfile, type TuningProfile } from '../knowledge/resolve.js';
import type { Placement } from '../knowledge/types.js';

export type Profile = TuningProfile;

export function doctorProfile(ref: ProfileRef, input: DoctorInput, given?: Placement): Profile {
  const t = input.topology;
  const ps = input.placed;
  const placement = choosePlacement(ref.klass, given, () =>
    detectPlacement(t, ps.ok ? ps.value : null, ps.ok ? '' : ps.reason),
  );
  return resolveProfile(ref, machineFacts(t), placement);
}
