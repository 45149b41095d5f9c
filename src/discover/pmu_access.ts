// The memory accesses of a set of processes' threads sampled with the PMU for a window, as
// numatop does (native/perf_event.ts on the event sysfs/pmu.ts finds), each classified by its
// data source as local or remote DRAM (sysfs/perf_samples.ts), with what places a sample on a
// node (the CPU's node, the memory block of a physical address); policy/access_locality.ts counts
// them per process. Only on the live system: a snapshot has no PMU. "unavailable" says why in
// one line (no PMU, and what /sys/bus/event_source/devices has instead; perf_event_paranoid;
// the call's errno).
import type { MemSample } from '../model/access_locality.js';
import { NativeError } from '../native/errors.js';
import { MemSampling, memSampleType } from '../native/perf_event.js';
import { nodeOfPhys, readMemoryBlocks } from '../sysfs/memory_blocks.js';
import { parsePerfSamples } from '../sysfs/perf_samples.js';
import { findMemPmu, readPerfParanoid } from '../sysfs/pmu.js';
import { listTids } from '../sysfs/proc_list.js';
import type { SysRoot } from '../sysfs/root.js';
import { readCpuNodes } from './process_sampler.js';

/** Where a sample's memory was: the node of the CPU that took it, the node of a physical address. */
export interface SampleNodes {
  readonly cpuNode: (cpu: number) => number | null;
  readonly physNode: (phys: bigint) => number | null;
}

/** What PMU sampling gave: the memory samples and where they lie, or why none. */
export type PmuSamples =
  | {
      readonly kind: 'ok';
      readonly samples: MemSample[];
      readonly where: SampleNodes;
      readonly lost: number;
      readonly threads: number;
    }
  | { readonly kind: 'unavailable'; readonly why: string };

/**
 * Samples the memory accesses of `pids`' threads with the PMU for `windowMs` (sysfs/pmu.ts finds
 * the event; native/perf_event.ts opens it). Only on the live system: a snapshot has no PMU.
 */
export async function samplePmuMemory(
  root: SysRoot,
  pids: readonly number[],
  o: { windowMs: number; sleep?: (ms: number) => Promise<void> },
): Promise<PmuSamples> {
  if (!root.isReal) return { kind: 'unavailable', why: 'a snapshot cannot be sampled' };
  const pmu = findMemPmu(root);
  if (pmu.kind === 'absent') return { kind: 'unavailable', why: pmu.why };
  const tids = pids.flatMap((pid) => listTids(root, pid) ?? [pid]).slice(0, MAX_SAMPLED_THREADS);
  // The physical address (the node of a remote access) only where the kernel gives it.
  const sampleType = memSampleType(process.getuid?.() === 0 || (readPerfParanoid(root) ?? 2) <= 1);
  let session: MemSampling;
  try {
    session = MemSampling.open(pmu, tids, { sampleType, userOnly: pmu.vendor !== 'amd-ibs' });
  } catch (e) {
    if (e instanceof NativeError) return { kind: 'unavailable', why: e.message };
    throw e;
  }
  try {
    await (o.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms))))(o.windowMs);
    const streams = session.read().map((b) => parsePerfSamples(b, sampleType));
    const cpuNode = readCpuNodes(root);
    const blocks = readMemoryBlocks(root);
    return {
      kind: 'ok',
      samples: streams.flatMap((s) => s.samples),
      where: {
        cpuNode: (cpu) => cpuNode.get(cpu) ?? null,
        physNode: (phys) => (blocks === null ? null : nodeOfPhys(blocks, phys)),
      },
      lost: streams.reduce((n, s) => n + s.lost, 0),
      threads: session.threads,
    };
  } finally {
    session.close();
  }
}

/** Threads sampled at most (an event and a ring of 9 pages each). */
export const MAX_SAMPLED_THREADS = 256;
