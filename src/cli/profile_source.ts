// `numakit apply --profile NAME` (and bench ab's tuned:PROFILE, given it by its command): the machine read (topology, services, interrupt counts, the
// large processes for placement), the knowledge table's profile resolved for it, and the
// changes that make it so (policy/tuning/build.ts). The matrix test runs the same function.
import type { System } from '../actuate/system.js';
import { readPlacedProcesses } from '../discover/placement.js';
import { discoverTopology } from '../discover/topology.js';
import type { Change, ServiceState } from '../model/change.js';
import { largeProcessBytes } from '../model/large_process.js';
import { LARGE_PROCESS_BYTES } from '../model/placement.js';
import { machineMemoryBytes } from '../model/topology.js';
import { SETTING_LABELS } from '../policy/knowledge/labels.js';
import { choosePlacement, detectPlacement } from '../policy/knowledge/placement.js';
import { aliasNote, profileByName } from '../policy/knowledge/profiles.js';
import { machineFacts, resolveProfile, wanted, type TuningProfile } from '../policy/knowledge/resolve.js';
import type { Placement } from '../policy/knowledge/types.js';
import { allChanges, buildTuning, type TuningChanges } from '../policy/tuning/build.js';
import { TUNING_UNITS, type TuningInput } from '../policy/tuning/input.js';
import { readInterrupts } from '../sysfs/irq.js';

export interface ProfileSource {
  readonly name: string;
  /** "profile database": what the journal and --json name the source. */
  readonly label: string;
  /** The dry run's first words: the label and how the placement was decided. */
  readonly header: string;
  readonly tunedBase?: string;
  readonly changes: Change[];
  readonly notes: string[];
  readonly profile: TuningProfile;
  readonly tuning: TuningChanges;
  readonly aliasNote: string | null;
}

function readServices(sys: System): Record<string, ServiceState> {
  const out: Record<string, ServiceState> = {};
  for (const unit of TUNING_UNITS) {
    const s = sys.services?.state(unit) ?? null;
    if (s !== null) out[unit] = s;
  }
  return out;
}

/** What the running irqbalance leaves alone; [] when its socket refuses a non-root dry run (root's socket). */
function irqbalanceBanned(sys: System): number[] | null {
  if (!sys.irqbalance) return null;
  try {
    return sys.irqbalance.banned();
  } catch (e) {
    if (process.getuid?.() === 0) throw e;
    return [];
  }
}

export function tuningInput(sys: System): TuningInput {
  const ints = readInterrupts(sys.root);
  return {
    topology: discoverTopology(sys.root, { caches: false }),
    services: readServices(sys),
    irqTotals: Object.fromEntries((ints?.lines ?? []).map((l) => [l.irq, l.total])),
    irqbalanceBanned: irqbalanceBanned(sys),
  };
}

export function profileSource(sys: System, name: string, given: Placement | undefined): ProfileSource {
  const ref = profileByName(name);
  const input = tuningInput(sys);
  const placement = choosePlacement(ref.klass, given, () => {
    const ps = readPlacedProcesses(
      sys.root,
      largeProcessBytes(LARGE_PROCESS_BYTES, machineMemoryBytes(input.topology)),
    );
    return detectPlacement(input.topology, ps.ok ? ps.value : null, ps.ok ? '' : ps.reason);
  });
  const profile = resolveProfile(ref, machineFacts(input.topology), placement);
  const tuning = buildTuning(profile, input);
  const where = placement.value === null && placement.how === 'class' ? '' : ` (placement ${placement.detail})`;
  const tuned = wanted(profile, 'tuned')?.value.profile;
  return {
    name: ref.klass,
    label: `profile ${ref.klass}`,
    header: `profile ${ref.klass}${where}`,
    ...(tuned === undefined ? {} : { tunedBase: tuned }),
    changes: allChanges(tuning),
    notes: tuning.notes.map((n) => `${SETTING_LABELS[n.setting]}: ${n.why}`),
    profile,
    tuning,
    aliasNote: aliasNote(ref),
  };
}
