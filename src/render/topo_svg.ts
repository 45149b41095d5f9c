// The topology picture (lstopo's graphical output, for NUMA): nodes as boxes in a grid with
// their memory bars, CPUs (package/core/thread) and devices; devices whose node is unknown in a
// box of their own; the distance matrix as a heatmap. The same SVG is `numakit topo --svg`,
// the body of `topo --html` and the dashboard's picture. Pure.
import type { Topology } from '../model/topology.js';
import type { HwlocView } from './hwloc_view.js';
import { groupLines, ioTreeLines, memCacheLines } from './topo_hwloc_lines.js';
import { summaryLine } from './topo_text.js';
import { heatmap } from './svg/heatmap.js';
import { BOX_W, deviceLabel, nodeBox } from './svg/node_box.js';
import { el, rect, text } from './svg/svg.js';

const MARGIN = 12;
const GAP = 12;

/** Inline styles, so the file looks the same opened alone; the dashboard's CSS may override. */
export const SVG_STYLE = `
.node-box{fill:#f7f9fc;stroke:#5b6b82;stroke-width:1.2}.node-box.memory-only{fill:#fdf6e8;stroke:#b07a1e;stroke-dasharray:5 3}
.node-title,.heading{font:600 13px sans-serif;fill:#1d2633}.mem-text,.device,.axis,.dist-value,.summary{font:11px sans-serif;fill:#344256}
.mem-free{fill:#d9e7d4}.mem-used{fill:#4f7fbf}.core{fill:#e4e9f1;stroke:#9aa7b8;stroke-width:.6}.cpu{fill:#7aa0d6}.cpu.offline{fill:#ccc}
.unknown-box{fill:#fff;stroke:#999;stroke-dasharray:3 3}.cpu-id{font:6.5px sans-serif;fill:#fff;pointer-events:none}
.caches{font:10px sans-serif;fill:#344256}.hwloc-box{fill:#fff;stroke:#9aa7b8}.hwloc-line{font:11px monospace;fill:#344256;white-space:pre}`;

function unknownBox(t: Topology, x: number, y: number): { svg: string; height: number } {
  const devs = t.devices.filter((d) => d.node === null);
  if (devs.length === 0) return { svg: '', height: 0 };
  const h = 30 + devs.length * 16;
  return {
    svg: el(
      'g',
      { class: 'unknown-node' },
      rect(x, y, BOX_W, h, { class: 'unknown-box', rx: 6 }),
      text(x + 10, y + 18, 'Unknown node (firmware gives no numa_node)', { class: 'node-title' }),
      ...devs.map((d, i) => text(x + 10, y + 36 + i * 16, deviceLabel(d), { class: `device ${d.kind}` })),
    ),
    height: h,
  };
}

/**
 * hwloc's groups, memory-side caches and I/O tree (hwloc_view.ts) in a box of their own, the
 * same lines the text view prints; each line's class says what it is (hwloc-group, memcache,
 * io HostBridge|PCIBridge|PCIDev|OSDev).
 */
function hwlocBox(view: HwlocView | undefined, x: number, y: number): { svg: string; height: number } {
  if (view === undefined) return { svg: '', height: 0 };
  const groups = groupLines(view);
  const lines: [string, string][] = [
    ...view.groups.map((_, i): [string, string] => ['hwloc-group', groups[i]!]),
    ...view.numa.flatMap((n) => memCacheLines(n).map((l): [string, string] => ['memcache', `node ${n.id}: ${l}`])),
    ...ioTreeLines(view).map((l, i): [string, string] => [`io ${view.io[i]!.type}`, l]),
  ];
  if (lines.length === 0) return { svg: '', height: 0 };
  const h = 30 + lines.length * 15;
  const w = BOX_W * 2;
  return {
    svg: el(
      'g',
      { class: 'hwloc' },
      rect(x, y, w, h, { class: 'hwloc-box', rx: 6 }),
      text(x + 10, y + 18, 'As hwloc sees it (topo --xml): groups, memory-side caches, I/O tree', {
        class: 'node-title',
      }),
      ...lines.map(([cls, l], i) =>
        text(x + 10, y + 36 + i * 15, l, { class: `hwloc-line ${cls}`, 'xml:space': 'preserve' }),
      ),
    ),
    height: h,
  };
}

/** `inlineStyle: false` leaves the <style> out (a page with a strict CSP loads SVG_STYLE as a file). */
export function renderTopoSvg(t: Topology, o: { inlineStyle?: boolean; view?: HwlocView } = {}): string {
  const cols = Math.min(4, Math.max(1, Math.ceil(Math.sqrt(t.nodes.length))));
  const boxes: string[] = [];
  const colHeights = new Array<number>(cols).fill(MARGIN + 28);
  t.nodes.forEach((n, i) => {
    const col = i % cols;
    const b = nodeBox(t, n, MARGIN + col * (BOX_W + GAP), colHeights[col]!);
    boxes.push(b.svg);
    colHeights[col]! += b.height + GAP;
  });
  const unknown = unknownBox(t, MARGIN, Math.max(...colHeights));
  const hwlocY = Math.max(...colHeights) + (unknown.height > 0 ? unknown.height + GAP : 0);
  const hw = hwlocBox(o.view, MARGIN, hwlocY);
  const below = hwlocY + (hw.height > 0 ? hw.height + GAP : 0);
  const hm = heatmap(t, MARGIN + cols * (BOX_W + GAP), MARGIN + 28);
  const width = Math.max(
    MARGIN * 2 + cols * (BOX_W + GAP) + (hm.width > 0 ? hm.width + GAP : 0),
    hw.height > 0 ? MARGIN * 2 + BOX_W * 2 : 0,
  );
  const height = Math.max(below, MARGIN + 28 + hm.height + GAP) + MARGIN;
  return `${el(
    'svg',
    {
      xmlns: 'http://www.w3.org/2000/svg',
      class: 'topology',
      width,
      height,
      viewBox: `0 0 ${width} ${height}`,
      role: 'img',
      'aria-label': summaryLine(t),
    },
    o.inlineStyle === false ? '' : el('style', {}, SVG_STYLE),
    text(MARGIN, MARGIN + 12, summaryLine(t), { class: 'summary' }),
    ...boxes,
    unknown.svg,
    hw.svg,
    hm.svg,
  )}\n`;
}
