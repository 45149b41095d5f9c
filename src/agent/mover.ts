// A paced move of a process's memory: its anonymous mappings walked in bounded batches of
// move_pages(2) (move_batch.ts), each batch charged to the migration budget in MB/s and in a
// share of one CPU (policy/agent/pace.ts), the event loop let in between batches so that a
// SIGTERM is seen within a fraction of a second, and progress reported as it goes (the
// journal keeps it). The process exiting (ESRCH, or EINVAL once its memory is released), pages the kernel will not move (EBUSY:
// pinned or under I/O; EACCES: shared with another process) and a target node out of memory
// (ENOMEM: the move stops there) are outcomes, never exceptions.
import { FIRST_BATCH_BYTES, nextBatchBytes, pauseMs, type PaceOptions } from '../policy/agent/pace.js';
import { planMove, type MoveSpan } from '../policy/agent/move_plan.js';
import { moveBatch, type BatchCount } from './move_batch.js';
import { BatchBuffers } from './page_batch.js';
import type { ThreadOps } from './ops.js';

export interface MoveClock {
  /** Milliseconds, monotonic. */
  now(): number;
  /** CPU the agent has used (user + system), in milliseconds. */
  cpuMs(): number;
  /** Waits `ms` (0: lets the event loop run once); resolves at once when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export interface MoveDeps {
  readonly ops: ThreadOps;
  readonly clock: MoveClock;
  readonly pace: PaceOptions;
  /** Aborted on SIGTERM/SIGINT: the move stops after the batch in progress. */
  readonly signal: AbortSignal;
  /** Called after each batch with the bytes moved so far. */
  readonly progress?: (movedBytes: number, plannedBytes: number) => void;
  readonly buffers?: BatchBuffers;
}

/** How a move ended: done, stopped (signal), full (ENOMEM on a target), gone (ESRCH), failed. */
export type MoveEnd = 'done' | 'stopped' | 'full' | 'gone' | 'failed';

export interface MoveResult {
  readonly end: MoveEnd;
  readonly plannedBytes: number;
  readonly movedBytes: number;
  readonly movedPages: number;
  /** Pages found on a source node and still there at the end (busy, shared, refused). */
  readonly notMoved: number;
  readonly ms: number;
  readonly batches: number;
  /** failed (and full): the errno name and the kernel's message. */
  readonly code?: string;
  readonly message?: string;
}

/** Addresses of pages left behind that get one more try at the end (a bound on memory). */
const RETRY_CAP = 65536;

class Walk {
  moved = 0;
  pages = 0;
  batches = 0;
  /** Pages left behind: address and page size. */
  left: number[] = [];
  leftStep: number[] = [];
  batchBytes = FIRST_BATCH_BYTES;
  readonly t0: number;
  readonly cpu0: number;

  constructor(
    readonly d: MoveDeps,
    readonly pid: number,
    readonly planned: number,
    readonly buf: BatchBuffers,
  ) {
    this.t0 = d.clock.now();
    this.cpu0 = d.clock.cpuMs();
  }

  result(end: MoveEnd, extra: { code?: string; message?: string } = {}): MoveResult {
    return {
      end,
      plannedBytes: this.planned,
      movedBytes: this.moved,
      movedPages: this.pages,
      notMoved: this.left.length,
      ms: Math.round(this.d.clock.now() - this.t0),
      batches: this.batches,
      ...extra,
    };
  }

  /** Moves what buf.addrs[0..count) holds on a source node, and counts it. */
  batch(span: Pick<MoveSpan, 'query' | 'to'>, step: number, count: number): BatchCount {
    const t = this.d.clock.now();
    const c = moveBatch(this.d.ops, this.pid, span, this.buf, count);
    this.batches++;
    this.moved += c.moved * step;
    this.pages += c.moved;
    for (const a of c.left) {
      if (this.left.length >= RETRY_CAP) break;
      this.left.push(a);
      this.leftStep.push(step);
    }
    this.batchBytes = nextBatchBytes({ bytes: count * step, wallMs: this.d.clock.now() - t }, this.d.pace);
    this.d.progress?.(this.moved, this.planned);
    return c;
  }

  /** Waits as the budgets say, letting signals in. */
  async pause(): Promise<void> {
    const so = { bytes: this.moved, elapsedMs: this.d.clock.now() - this.t0, cpuMs: this.d.clock.cpuMs() - this.cpu0 };
    await this.d.clock.sleep(pauseMs(so, this.d.pace), this.d.signal);
  }
}

function ended(w: Walk, pid: number, e: unknown): MoveResult {
  const code = (e as { code?: unknown }).code;
  if (code === 'ESRCH') return w.result('gone');
  // move_pages(2) answers EINVAL for a process that has no memory any more: one exiting (killed
  // in the middle of its move) has released its mm before it is reaped. Its numa_maps then reads
  // empty (or it is gone): that is the process exiting, not a failed move.
  if (code === 'EINVAL' && (w.d.ops.anonRanges(pid)?.length ?? 0) === 0) return w.result('gone');
  return w.result('failed', { code: typeof code === 'string' ? code : 'ERROR', message: (e as Error).message });
}

/** Moves the pages of `pid` on `from` to `to` (as node_remap maps them), paced. */
export async function movePaced(
  pid: number,
  from: readonly number[],
  to: readonly number[],
  d: MoveDeps,
): Promise<MoveResult> {
  const ranges = d.ops.anonRanges(pid);
  const plan = planMove(ranges ?? [], from, to);
  const w = new Walk(d, pid, plan.bytes, d.buffers ?? new BatchBuffers());
  if (ranges === null) return w.result('gone');
  try {
    // Lays out the batch memory (WebAssembly: a node run with --jitless has none, and the move fails here).
    w.buf.setTargets(plan.target);
    for (const span of plan.spans) {
      let found = 0;
      for (let addr = span.start; addr < span.end && found < span.sourcePages; ) {
        if (d.signal.aborted) return w.result('stopped');
        const count = Math.max(
          1,
          Math.min(Math.floor(w.batchBytes / span.step), Math.floor((span.end - addr) / span.step)),
        );
        w.buf.ensure(count);
        w.buf.fill(addr, span.step, count);
        const c = w.batch(span, span.step, count);
        if (c.full !== null) return w.result('full', { code: 'ENOMEM', message: c.full });
        found += c.found;
        addr += count * span.step;
        await w.pause();
      }
    }
    return await retryLeft(w);
  } catch (e) {
    return ended(w, pid, e);
  }
}

/** One more try for the pages left behind (busy a moment ago); those still there are not moved. */
async function retryLeft(w: Walk): Promise<MoveResult> {
  const [left, steps] = [w.left, w.leftStep];
  w.left = [];
  w.leftStep = [];
  for (let i = 0; i < left.length; ) {
    if (w.d.signal.aborted) return w.result('stopped');
    const step = steps[i]!;
    const max = Math.min(left.length - i, Math.max(1, Math.floor(w.batchBytes / step)));
    let count = 0;
    w.buf.ensure(max);
    while (count < max && steps[i + count] === step) {
      w.buf.setAddr(count, left[i + count]!);
      count++;
    }
    const c = w.batch({ query: true, to: null }, step, count);
    if (c.full !== null) return w.result('full', { code: 'ENOMEM', message: c.full });
    i += count;
    await w.pause();
  }
  return w.result('done');
}
