// `numakit topo --html FILE`: the topology picture in a page of its own (no scripts, no
// external fonts or styles), with the summary and the text view below it for searching. Pure.
import type { Topology } from '../model/topology.js';
import type { HwlocView } from './hwloc_view.js';
import { esc } from './svg/svg.js';
import { renderTopoSvg } from './topo_svg.js';
import { renderTopoText, summaryLine } from './topo_text.js';

/** `view`: hwloc's tree (hwloc_view.ts), drawn in the picture and printed in the text view. */
export function renderTopoHtml(t: Topology, o: { title: string; view?: HwlocView }): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(o.title)}: NUMA topology</title>
<style>body{font:14px sans-serif;margin:16px;color:#1d2633}pre{background:#f4f6f9;padding:8px;overflow:auto}</style>
</head><body>
<h1>${esc(o.title)}</h1>
<p>${esc(summaryLine(t))}</p>
${renderTopoSvg(t, { view: o.view })}<h2>Text view</h2>
<pre>${esc(renderTopoText(t, o.view))}</pre>
<p>numakit topo --html</p>
</body></html>
`;
}
