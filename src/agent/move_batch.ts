// One batch of a paced move: the addresses of up to `count` pages of one span; query where
// they are (unless the span is direct), move those on a source node to its target with one
// move_pages(2) call, and count what happened. Where the kernel's answer is not certain (it
// returned a count of pages not moved, which leaves later statuses unwritten; ENOMEM; EBUSY,
// which a tail page of a transparent huge page also answers while its head moves) the pages
// are asked again. The per-page loops run in WebAssembly (page_batch.ts). Synchronous: the
// caller yields to signals between batches.
import type { MoveSpan } from '../policy/agent/move_plan.js';
import type { ThreadOps } from './ops.js';
import type { BatchBuffers } from './page_batch.js';

const ENOENT = 2;
const EFAULT = 14;
const EBUSY = 16;
/** A status slot the kernel did not write. */
const UNSET = -0x7fffffff;

export interface BatchCount {
  /** Pages found on a source node. */
  found: number;
  /** Pages now on their target. */
  moved: number;
  /** Pages still on a source node (busy, shared, or refused), with their addresses. */
  left: number[];
  /** The target node refused memory (ENOMEM): the move should stop. The kernel's message, or null. */
  full: string | null;
}

const codeOf = (e: unknown) => (e as { code?: unknown }).code;

/** Where the first `n` chosen pages are now: fills b.status. */
function ask(ops: ThreadOps, pid: number, b: BatchBuffers, n: number): void {
  b.status.fill(UNSET, 0, n);
  ops.movePages(pid, n, b.chosen, null, b.status);
}

/**
 * Moves the pages of b.addrs[0..count) that sit on a source node (b.setTargets) to its target;
 * throws the call's error but ENOMEM.
 */
export function moveBatch(
  ops: ThreadOps,
  pid: number,
  span: Pick<MoveSpan, 'query' | 'to'>,
  b: BatchBuffers,
  count: number,
): BatchCount {
  let n: number;
  if (span.query) {
    b.status.fill(UNSET, 0, count);
    ops.movePages(pid, count, b.addrs, null, b.status);
    n = b.select(count);
  } else {
    b.chosen.set(b.addrs.subarray(0, 2 * count));
    b.nodes.fill(span.to!, 0, count);
    n = count;
  }
  const out: BatchCount = { found: span.query ? n : 0, moved: 0, left: [], full: null };
  if (n === 0) return out;
  b.status.fill(UNSET, 0, n);
  let unsure = false;
  try {
    unsure = ops.movePages(pid, n, b.chosen, b.nodes, b.status) !== 0;
  } catch (e) {
    if (codeOf(e) !== 'ENOMEM') throw e;
    out.full = (e as Error).message;
    unsure = true;
  }
  if (unsure || b.unsure(n, UNSET, -EBUSY)) ask(ops, pid, b, n);
  // Never touched (ENOENT), or unmapped meanwhile (EFAULT): not found.
  const t = b.tally(n, -ENOENT, -EFAULT);
  if (!span.query) out.found = t.found;
  out.moved = t.moved;
  for (let i = 0; i < t.leftCount; i++) out.left.push(b.chosenAddr(b.left[i]!));
  return out;
}
