// report.html: one self-contained page (inline CSS and SVG, no script, nothing fetched) with
// the charts and the text report. Opens offline in any browser. Pure.
import type { AbResult, MemResult } from '../../model/bench.js';
import { renderAbText } from './ab_text.js';
import { renderMemText } from './mem_text.js';
import { abCharts, memCharts } from './report_charts.js';
import { esc } from './svg.js';

const CSS = `body{font:14px/1.45 system-ui,-apple-system,"DejaVu Sans",sans-serif;margin:24px;color:#111;max-width:1100px}
h1{font-size:20px;margin:0 0 4px}p.s{color:#555;margin:0 0 16px}
.charts{display:flex;flex-wrap:wrap;gap:18px}.charts svg{background:#fff;border:1px solid #ddd;border-radius:4px}
svg .t{font-size:13px;font-weight:600}svg .l{font-size:12px;fill:#333}svg .v{font-size:12px;font-weight:600}
pre{background:#f6f6f6;padding:12px;overflow-x:auto;font:12px/1.35 "DejaVu Sans Mono",monospace}`;

export function renderReportHtml(r: MemResult | AbResult): string {
  const mem = r.kind === 'bench-mem';
  const title = mem
    ? `numakit bench mem: ${r.cpuNodes.length} x ${r.memNodes.length} nodes`
    : `numakit bench ab: ${r.command.join(' ')}`;
  const charts = mem ? memCharts(r) : abCharts(r);
  const text = mem ? renderMemText(r) : renderAbText(r);
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${esc(title)}</title><style>${CSS}</style></head>
<body><h1>${esc(title)}</h1><p class="s">${esc(r.time)} &middot; ${esc(r.settings.cpuModel ?? 'CPU unknown')} &middot; Linux ${esc(r.settings.kernel ?? '?')}</p>
<div class="charts">
${charts.join('\n')}
</div>
<h2>Report</h2>
<pre>${esc(text)}</pre>
</body></html>
`;
}
