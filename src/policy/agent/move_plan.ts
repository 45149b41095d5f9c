// What a paced move walks: the spans of a process's anonymous mappings that hold pages on the
// source nodes, and where each source node's pages go (as migrate_pages(2) would put them:
// remapNode, so the policy's scoring holds). Pure.
//
// A span is walked in batches of page addresses. "direct" spans hold pages only on source
// nodes: every page found is moved with one move_pages call per batch (pages never touched
// answer ENOENT). Other spans (pages on the target too, or on nodes that must stay: a
// memory-only node's pages are never pulled back) are queried first (move_pages with no
// nodes) and only the pages on a source node are moved.
import { remapNode } from './evaluate.js';

export interface RangeInput {
  readonly start: number;
  readonly end: number;
  readonly pageBytes: number;
  readonly pages: ReadonlyMap<number, number>;
}

export interface MoveSpan {
  readonly start: number;
  readonly end: number;
  /** Bytes between page addresses (the mapping's page size). */
  readonly step: number;
  /** Query before moving (pages on nodes other than the sources, or sources going to several targets). */
  readonly query: boolean;
  /** The one target of a span that is not queried (every page found goes there); null when queried. */
  readonly to: number | null;
  /** Pages on source nodes when planned: the walk of a sparse span stops once it found them. */
  readonly sourcePages: number;
}

export interface MovePlan {
  readonly spans: readonly MoveSpan[];
  /** Source node -> target node. */
  readonly target: ReadonlyMap<number, number>;
  readonly bytes: number;
}

export function planMove(ranges: readonly RangeInput[], from: readonly number[], to: readonly number[]): MovePlan {
  const target = new Map(from.map((s) => [s, remapNode(s, from, to)]));
  const spans: MoveSpan[] = [];
  let bytes = 0;
  for (const r of ranges) {
    let source = 0;
    let other = 0;
    const targets = new Set<number>();
    for (const [n, pages] of r.pages) {
      const t = target.get(n);
      if (t === undefined) other += pages;
      else if (pages > 0) {
        source += pages;
        targets.add(t);
      }
    }
    if (source === 0) continue;
    bytes += source * r.pageBytes;
    // Direct only when each page found goes to the one target: no other pages, one target.
    const query = other > 0 || targets.size > 1;
    spans.push({
      start: r.start,
      end: r.end,
      step: r.pageBytes,
      query,
      to: query ? null : [...targets][0]!,
      sourcePages: source,
    });
  }
  return { spans, target, bytes };
}
