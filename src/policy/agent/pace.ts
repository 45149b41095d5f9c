// Pacing of a move made in batches: how long to wait after a batch, and how many pages the
// next one takes. A move is charged to the migration budget in MB/s (--max-migrate-mbps) and in
// a share of one CPU (--max-migrate-cpu: the kernel's copy runs on the agent's CPU time),
// both counted from the move's start, so a slow batch is made up by the next ones and the
// average stays within both. Batches aim at TARGET_BATCH_MS, so that a stop request (SIGTERM)
// is seen within a fraction of a second even when the copy is slow. Pure.

/**
 * Wall time a batch aims at: a stop waits for the batch in progress (a move_pages(2) call cannot
 * be cut short), so this is most of what a move adds to the agent's exit.
 */
export const TARGET_BATCH_MS = 50;
/**
 * Bounds of a batch, in bytes of address space walked (8 .. 4096 base pages). The low bound is
 * low because a copy can be very slow: each page unmapped costs a TLB shootdown on the CPUs
 * running the process, and under emulation on a loaded host one took 15 ms (256 KiB: a second).
 */
export const MIN_BATCH_BYTES = 32 * 1024;
export const MAX_BATCH_BYTES = 16 * 1024 * 1024;
/** First batch of a move: small, for a slow copy; batches grow 4x a step while they stay fast. */
export const FIRST_BATCH_BYTES = 64 * 1024;

export interface PaceOptions {
  /** MB/s (10^6 bytes); 0 = unlimited. */
  readonly mbps: number;
  /** Share of one CPU (0..1]; 1 = no limit beyond one thread. */
  readonly cpuShare: number;
}

/** --max-migrate-cpu auto on a machine without an idle CPU: half of one, the rest left to its work. */
export const BUSY_MIGRATE_SHARE = 0.5;
/** Idle CPUs (the machine's, over the last window, the agent's own counted idle) that make a whole one free for a copy. */
export const IDLE_FOR_WHOLE_CPU = 1;

/**
 * The share of one CPU a move may use: the setting, or with 'auto' a whole CPU when the machine
 * had IDLE_FOR_WHOLE_CPU idle over the last window (the copy runs on the agent's CPU time: on an
 * idle CPU it takes nothing from the machine's work, and paced it only lasts longer and costs
 * more in all, each pause splitting it into more, smaller batches), else BUSY_MIGRATE_SHARE.
 */
export function migrateShare(setting: number | 'auto', idleCpus: number): number {
  if (setting !== 'auto') return setting;
  return idleCpus >= IDLE_FOR_WHOLE_CPU ? 1 : BUSY_MIGRATE_SHARE;
}

/** Totals of a move so far. */
export interface MoveSoFar {
  readonly bytes: number;
  /** Wall time since the move started, pauses included. */
  readonly elapsedMs: number;
  /** CPU the agent used since the move started (user + system: the kernel's copy included). */
  readonly cpuMs: number;
}

/** Milliseconds to wait before the next batch so that the move keeps within both budgets. */
export function pauseMs(m: MoveSoFar, o: PaceOptions): number {
  const byRate = o.mbps > 0 ? m.bytes / (o.mbps * 1e3) : 0;
  const byCpu = o.cpuShare > 0 && o.cpuShare < 1 ? m.cpuMs / o.cpuShare : 0;
  return Math.max(0, Math.ceil(Math.max(byRate, byCpu) - m.elapsedMs));
}

/**
 * Bytes of address space for the next batch: what the last batch's speed would walk in
 * TARGET_BATCH_MS (growing at most 4x a step), never more than the rate budget allows in that time.
 */
export function nextBatchBytes(last: { bytes: number; wallMs: number }, o: PaceOptions): number {
  const speed = last.bytes / Math.max(1, last.wallMs);
  let next = Math.min(speed * TARGET_BATCH_MS, last.bytes * 4);
  if (o.mbps > 0) next = Math.min(next, o.mbps * 1e3 * TARGET_BATCH_MS);
  return Math.max(MIN_BATCH_BYTES, Math.min(MAX_BATCH_BYTES, Math.floor(next)));
}
