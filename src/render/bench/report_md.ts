// REPORT.md: the result for a pull request or a ticket: headline figures as tables, then the
// full text report. Pure.
import type { AbResult, MemResult } from '../../model/bench.js';
import { renderAbText } from './ab_text.js';
import { renderMemText } from './mem_text.js';

function memTable(r: MemResult): string {
  const head = `| CPU node -> memory node | read GB/s | write GB/s | copy GB/s | triad GB/s | idle latency ns | pages on node |\n|---|---|---|---|---|---|---|\n`;
  const rows = r.cpuNodes.flatMap((i) =>
    r.memNodes.map((j) => {
      const b = r.bandwidth.find((c) => c.cpuNode === i && c.memNode === j);
      const l = r.latency.find((c) => c.cpuNode === i && c.memNode === j);
      const g = (k: 'read' | 'write' | 'copy' | 'triad') => b?.kernels[k]?.gbps.best.toFixed(1) ?? '-';
      const p = b?.placement ?? l?.placement;
      return `| ${i} -> ${j} | ${g('read')} | ${g('write')} | ${g('copy')} | ${g('triad')} | ${l?.ns.median.toFixed(1) ?? '-'} | ${p === undefined ? '-' : `${(p.share * 100).toFixed(1)}%`} |`;
    }),
  );
  return head + rows.join('\n');
}

function abTable(r: AbResult): string {
  const head =
    '| variant | runs counted | median | min | max | user s | sys s | verdict |\n|---|---|---|---|---|---|---|---|\n';
  const f = (x: number | undefined) => (x === undefined ? '-' : Math.abs(x) >= 100 ? x.toFixed(0) : x.toFixed(3));
  return (
    head +
    r.summary
      .map(
        (s) =>
          `| ${s.variant} | ${s.runs - s.failed}/${s.runs} | ${f(s.measure?.median)} | ${f(s.measure?.min)} | ${f(s.measure?.max)} | ${f(s.userS ?? undefined)} | ${f(s.systemS ?? undefined)} | ${s.verdict} |`,
      )
      .join('\n')
  );
}

export function renderReportMarkdown(r: MemResult | AbResult): string {
  const mem = r.kind === 'bench-mem';
  const title = mem ? '# numakit bench mem' : `# numakit bench ab: \`${r.command.join(' ')}\``;
  const table = mem ? memTable(r) : abTable(r);
  return `${title}\n\n${r.time}, ${r.settings.cpuModel ?? 'CPU unknown'}, Linux ${r.settings.kernel ?? '?'}. Charts: report.html.\n\n${table}\n\n## Full report\n\n\`\`\`\n${mem ? renderMemText(r) : renderAbText(r)}\`\`\`\n`;
}
