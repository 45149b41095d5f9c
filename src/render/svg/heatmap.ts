// The distance matrix as a heatmap: one cell per (from, to) pair, green local to red far, the
// SLIT value written in each cell.
import type { Topology } from '../../model/topology.js';
import { distanceColor, el, rect, text } from './svg.js';

const CELL = 30;

export function heatmap(t: Topology, x: number, y: number): { svg: string; width: number; height: number } {
  const ids = t.nodes.map((n) => n.id);
  const values = t.nodes.flatMap((n) => Object.values(n.distances));
  if (values.length === 0 || ids.length < 2) return { svg: '', width: 0, height: 0 };
  const max = Math.max(...values);
  const parts = [text(x, y + 12, 'Distances (SLIT)', { class: 'heading' })];
  const top = y + 24;
  ids.forEach((id, i) => {
    parts.push(text(x + 24 + i * CELL + CELL / 2, top + 12, String(id), { class: 'axis', 'text-anchor': 'middle' }));
    parts.push(text(x + 16, top + 18 + i * CELL + CELL / 2 + 4, String(id), { class: 'axis', 'text-anchor': 'end' }));
  });
  for (const [i, n] of t.nodes.entries()) {
    ids.forEach((to, j) => {
      const d = n.distances[to];
      if (d === undefined) return;
      const cx = x + 24 + j * CELL;
      const cy = top + 18 + i * CELL;
      parts.push(
        el(
          'g',
          { class: 'dist', 'data-from': n.id, 'data-to': to },
          rect(cx, cy, CELL - 2, CELL - 2, { fill: distanceColor(d, max) }),
          text(cx + (CELL - 2) / 2, cy + CELL / 2 + 3, String(d), { 'text-anchor': 'middle', class: 'dist-value' }),
        ),
      );
    });
  }
  return { svg: parts.join(''), width: 24 + ids.length * CELL, height: 24 + 18 + ids.length * CELL };
}
