// `numakit bench ab` for people: what ran, the kernel settings, a table per variant, and the
// verdict of each against the first. Pure.
import type { AbResult, AbVariantSummary } from '../../model/bench.js';
import { renderTable } from '../units.js';
import { renderSettings } from './settings_text.js';

const n = (x: number | null, digits = 0) => (x === null ? '-' : x.toFixed(digits));
const digitsFor = (x: number) => (Math.abs(x) >= 1000 ? 0 : Math.abs(x) >= 10 ? 1 : 3);

function measureName(r: AbResult): string {
  const m = r.options.metric;
  return m === null ? 'wall time, s (lower is better)' : `--metric /${m.regex}/ (${m.better} is better)`;
}

function table(r: AbResult): string {
  const header = [
    'variant',
    'runs',
    'median',
    'min',
    'max',
    'wall s',
    'user s',
    'sys s',
    'minflt',
    'majflt',
    'ctxsw',
    'numa_miss',
    'other_node',
  ];
  const rows = r.summary.map((s: AbVariantSummary) => {
    const d = s.measure === null ? 0 : digitsFor(s.measure.median);
    return [
      s.variant,
      s.failed > 0 ? `${s.runs - s.failed}/${s.runs}` : String(s.runs),
      n(s.measure?.median ?? null, d),
      n(s.measure?.min ?? null, d),
      n(s.measure?.max ?? null, d),
      n(s.wallS?.median ?? null, 3),
      n(s.userS, 3),
      n(s.systemS, 3),
      n(s.minorFaults),
      n(s.majorFaults),
      n(s.ctxSwitches),
      n(s.numaMiss),
      n(s.otherNode),
    ];
  });
  return `${renderTable([header, ...rows], { indent: '  ' })}\n`;
}

export function renderAbText(r: AbResult): string {
  const o = r.options;
  let out = `numakit bench ab: ${r.variants.length} variants x ${o.runs} runs, shuffled rounds (seed ${o.seed}), ${o.settleS} s settle${o.warmup > 0 ? `, ${o.warmup} warmup run(s) each` : ''}\n`;
  out += `workload: ${r.command.join(' ')}\n`;
  out += renderSettings(r.settings);
  out += `variants: ${r.variants.map((v) => `${v.name} (${v.kind === 'default' ? 'as it is' : v.spec})`).join(', ')}\n`;
  out += `measure: ${measureName(r)}; CPU of the whole process tree (getrusage); numastat deltas are system-wide, pages, all nodes\n\n`;
  out += table(r);
  out += `\nagainst ${r.summary[0]?.variant ?? '?'} (ratio of medians, > 1 is better; 95% bootstrap interval):\n`;
  for (const s of r.summary.slice(1)) out += `  ${s.variant}: ${s.verdict}\n`;
  const lines = [...r.notes.map((x) => `note: ${x}`), ...r.warnings.map((x) => `warning: ${x}`)];
  if (lines.length > 0) out += `\n${lines.join('\n')}\n`;
  return out;
}
