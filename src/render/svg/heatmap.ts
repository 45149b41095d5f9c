// The distance matrix as a heatmap: one cell per (from, to) pair, the SLIT value written in each
// cell, coloured on one absolute scale (svg.ts distanceColor: 10 green to 32 and beyond red) whose
// legend is drawn under the matrix, so two machines' pictures compare.
import type { Topology } from '../../model/topology.js';
import { distanceColor, el, FAR_DISTANCE, rect, text } from './svg.js';

const CELL = 30;
const HEADING = 'Distances (SLIT)';
/** Distances shown in the legend: local, one socket's sub-NUMA (EPYC NPS4), 2-socket, far. */
const LEGEND = [10, 12, 16, 21, 26, FAR_DISTANCE] as const;
const SWATCH = 22;
const LEGEND_LABEL = 'colour: same scale everywhere';
/** Wide enough for the heading (13px bold, about 8px a character), the legend and its label (11px, about 6.5px). */
const MIN_WIDTH = Math.ceil(Math.max(HEADING.length * 8, LEGEND.length * SWATCH + 8, LEGEND_LABEL.length * 6.5));

function legend(x: number, y: number): string {
  return el(
    'g',
    { class: 'legend' },
    text(x, y + 10, LEGEND_LABEL, { class: 'axis' }),
    ...LEGEND.map((d, i) =>
      el(
        'g',
        { class: 'legend-step', 'data-distance': d },
        rect(x + i * SWATCH, y + 16, SWATCH - 2, 12, { fill: distanceColor(d) }),
        text(x + i * SWATCH + (SWATCH - 2) / 2, y + 40, d === FAR_DISTANCE ? `${d}+` : String(d), {
          class: 'axis',
          'text-anchor': 'middle',
        }),
      ),
    ),
  );
}

export function heatmap(t: Topology, x: number, y: number): { svg: string; width: number; height: number } {
  const ids = t.nodes.map((n) => n.id);
  const values = t.nodes.flatMap((n) => Object.values(n.distances));
  if (values.length === 0 || ids.length < 2) return { svg: '', width: 0, height: 0 };
  const parts = [text(x, y + 12, HEADING, { class: 'heading' })];
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
          rect(cx, cy, CELL - 2, CELL - 2, { fill: distanceColor(d) }),
          text(cx + (CELL - 2) / 2, cy + CELL / 2 + 3, String(d), { 'text-anchor': 'middle', class: 'dist-value' }),
        ),
      );
    });
  }
  const matrixBottom = top + 18 + ids.length * CELL;
  parts.push(legend(x, matrixBottom + 8));
  return {
    svg: parts.join(''),
    width: Math.max(24 + ids.length * CELL, MIN_WIDTH),
    height: matrixBottom + 8 + 44 - y,
  };
}
