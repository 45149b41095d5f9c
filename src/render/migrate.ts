// What `numakit migrate` says it did: per-node memory of the process before and after (from
// numa_maps), what moved, how it ended. Text and JSON (schemaVersion 1, docs/json.md). Pure.
import { formatBytes } from '../model/bytes.js';
import { formatCpuList } from '../model/cpuset.js';

export type MigrateEnd = 'done' | 'stopped' | 'full' | 'gone' | 'failed';

export interface MigrateResult {
  readonly pid: number;
  readonly from: readonly number[];
  readonly to: readonly number[];
  /** migrate_pages: the kernel moves every page at once (migratepages); paced: the agent's mover. */
  readonly mover: 'migrate_pages' | 'paced';
  readonly end: MigrateEnd;
  /** Bytes that left the FROM nodes (paced: what the mover moved). */
  readonly movedBytes: number;
  /** paced: anonymous bytes on FROM nodes when the move was planned; null for migrate_pages. */
  readonly plannedBytes: number | null;
  /** Pages the kernel left where they were (busy, shared, pinned). */
  readonly pagesNotMoved: number;
  readonly ms: number;
  /** The signal that stopped a paced move. */
  readonly signal?: string;
  /** --threads: threads whose affinity was moved to the TO nodes' CPUs; null without --threads. */
  readonly threadsMoved: number | null;
  readonly nodesBefore: ReadonlyMap<number, number> | null;
  readonly nodesAfter: ReadonlyMap<number, number> | null;
  readonly message?: string;
}

/** Bytes of a process on each node, from its numa_maps mappings (pages times their page size). */
export function bytesPerNode(
  mappings: readonly { pageKb: number | null; pages: ReadonlyMap<number, number> }[],
): Map<number, number> {
  const out = new Map<number, number>();
  for (const m of mappings) {
    const page = (m.pageKb ?? 4) * 1024;
    for (const [node, n] of m.pages) out.set(node, (out.get(node) ?? 0) + n * page);
  }
  return out;
}

/** Bytes that left `from`: what the nodes held before less what they hold after. */
export function leftBytes(
  before: ReadonlyMap<number, number>,
  after: ReadonlyMap<number, number>,
  from: readonly number[],
): number {
  return Math.max(
    0,
    from.reduce((a, n) => a + (before.get(n) ?? 0) - (after.get(n) ?? 0), 0),
  );
}

const nodes = (ids: readonly number[]) => `node${ids.length === 1 ? '' : 's'} ${formatCpuList([...ids])}`;

export function renderMigrate(r: MigrateResult): string {
  const route = `${nodes(r.from)} to ${nodes(r.to)}`;
  const secs = `${(r.ms / 1000).toFixed(1)} s`;
  const notMoved = r.pagesNotMoved > 0 ? ` (${r.pagesNotMoved} pages not moved: busy, pinned or shared)` : '';
  const of = r.plannedBytes !== null ? ` of ${formatBytes(r.plannedBytes)}` : '';
  let head: string;
  switch (r.end) {
    case 'done':
      head = `pid ${r.pid}: moved ${formatBytes(r.movedBytes)}${of} from ${route} in ${secs}${notMoved}`;
      break;
    case 'stopped':
      head = `pid ${r.pid}: stopped by ${r.signal ?? 'a signal'} after moving ${formatBytes(r.movedBytes)}${of} from ${route} in ${secs}`;
      break;
    case 'gone':
      head = `pid ${r.pid}: the process exited after ${formatBytes(r.movedBytes)}${of} had moved from ${route}`;
      break;
    case 'full':
    case 'failed':
      head = `pid ${r.pid}: the move from ${route} stopped after ${formatBytes(r.movedBytes)}${of}: ${r.message ?? r.end}`;
      break;
  }
  let out = `${head}\n`;
  if (r.threadsMoved !== null) out += `threads moved to ${nodes(r.to)}'s CPUs: ${r.threadsMoved}\n`;
  if (r.nodesBefore !== null && r.nodesAfter !== null) {
    const ids = [...new Set([...r.nodesBefore.keys(), ...r.nodesAfter.keys()])].sort((a, b) => a - b);
    for (const n of ids)
      out += `  node ${n}: ${formatBytes(r.nodesBefore.get(n) ?? 0)} -> ${formatBytes(r.nodesAfter.get(n) ?? 0)}\n`;
  }
  return out;
}

const perNode = (m: ReadonlyMap<number, number> | null) =>
  m === null ? null : Object.fromEntries([...m].sort((a, b) => a[0] - b[0]).map(([n, b]) => [String(n), b]));

export function renderMigrateJson(r: MigrateResult): string {
  return `${JSON.stringify(
    {
      schemaVersion: 1,
      pid: r.pid,
      from: r.from,
      to: r.to,
      mover: r.mover,
      end: r.end,
      ...(r.signal !== undefined ? { signal: r.signal } : {}),
      ...(r.message !== undefined ? { message: r.message } : {}),
      movedBytes: r.movedBytes,
      plannedBytes: r.plannedBytes,
      pagesNotMoved: r.pagesNotMoved,
      ms: r.ms,
      threadsMoved: r.threadsMoved,
      nodesBefore: perNode(r.nodesBefore),
      nodesAfter: perNode(r.nodesAfter),
    },
    null,
    2,
  )}\n`;
}
