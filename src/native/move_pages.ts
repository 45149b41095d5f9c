// Where pages live, and moving them (move_pages(2)).
import { errnoName } from './errors.js';
import { fail, libc } from './libc.js';
import { MPOL_MF_MOVE, MPOL_MF_MOVE_ALL } from './mbind.js';

/** Per page: the node it is on (or was moved to), or why not (e.g. ENOENT: never touched). */
export type PageStatus = { kind: 'node'; node: number } | { kind: 'error'; errno: number; code: string };

export interface PagesOptions {
  /** Process whose pages these are; default 0, the caller. */
  pid?: number;
}

/** The node of each page (move_pages with nodes = NULL moves nothing). */
export function queryPages(pages: readonly bigint[], options: PagesOptions = {}): PageStatus[] {
  const pid = options.pid ?? 0;
  const status = new Int32Array(pages.length);
  if (pages.length === 0) return [];
  if (libc().move_pages(pid, pages.length, BigUint64Array.from(pages), null, status, 0) < 0) {
    fail('move_pages', { target: `pid ${pid}, ${pages.length} pages` });
  }
  return decodeStatus(status);
}

export interface MovePagesOptions extends PagesOptions {
  /** MPOL_MF_MOVE_ALL: also pages shared with other processes (needs CAP_SYS_NICE). */
  all?: boolean;
}

/**
 * Moves `pages[i]` to `nodes[i]`. `notMoved` is the kernel's count of pages it could not
 * move (Linux 4.17+; 0 on older kernels); `status` says where each page ended up.
 */
export function movePages(
  pages: readonly bigint[],
  nodes: readonly number[],
  options: MovePagesOptions = {},
): { status: PageStatus[]; notMoved: number } {
  if (pages.length !== nodes.length)
    throw new RangeError(`move_pages: ${pages.length} pages but ${nodes.length} nodes`);
  if (pages.length === 0) return { status: [], notMoved: 0 };
  const pid = options.pid ?? 0;
  const status = new Int32Array(pages.length);
  const flags = options.all === true ? MPOL_MF_MOVE_ALL : MPOL_MF_MOVE;
  const rc = libc().move_pages(pid, pages.length, BigUint64Array.from(pages), Int32Array.from(nodes), status, flags);
  if (rc < 0) {
    fail('move_pages', {
      target: `pid ${pid}, ${pages.length} pages to nodes ${[...new Set(nodes)].join(',')}`,
      hint: libc().koffi.errno() === 19 ? 'a target node is not online (ENODEV)' : undefined,
    });
  }
  return { status: decodeStatus(status), notMoved: Number(rc) };
}

/** A status entry is a node id, or a negative errno for that page (e.g. -ENOENT, -EFAULT). */
export function decodeStatus(status: Int32Array): PageStatus[] {
  return Array.from(status, (s) =>
    s >= 0 ? { kind: 'node', node: s } : { kind: 'error', errno: -s, code: errnoName(-s) },
  );
}

/**
 * move_pages(2) on arrays the caller owns and reuses (the agent's mover walks hundreds of
 * thousands of pages: no array or BigInt per page). `pages` holds `count` 64-bit addresses;
 * `nodes` null only queries. Fills `status` (node, or -errno per page) and returns the
 * kernel's count of pages not moved. Throws a NativeError (ESRCH, ENOMEM, EPERM ...).
 */
export function movePagesInto(
  pid: number,
  count: number,
  pages: ArrayBufferView,
  nodes: Int32Array | null,
  status: Int32Array,
): number {
  if (count === 0) return 0;
  const rc = libc().move_pages(pid, count, pages, nodes, status, nodes === null ? 0 : MPOL_MF_MOVE);
  if (rc < 0) fail('move_pages', { target: `pid ${pid}, ${count} pages` });
  return Number(rc);
}
