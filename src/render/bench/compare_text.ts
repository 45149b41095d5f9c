// `numakit bench compare A.json B.json` for people. Pure.
import type { CompareResult } from '../../model/bench.js';
import { renderTable } from '../units.js';

const f = (x: number | null) =>
  x === null ? '-' : Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 1 ? x.toFixed(2) : x.toFixed(4);

export function renderCompareText(c: CompareResult): string {
  let out = `numakit bench compare (${c.of}): B = ${c.b.file} (${c.b.time}) against A = ${c.a.file} (${c.a.time})\n`;
  out +=
    c.changed.length === 0
      ? 'recorded settings: the same\n'
      : `recorded settings that changed: ${c.changed.join('; ')}\n`;
  out += 'medians; ratio > 1 means B is better; 95% bootstrap interval over the runs (ab) or reps and laps (mem)\n\n';
  const rows = c.rows.map((r) => [r.what, r.unit, f(r.a), f(r.b), r.verdict]);
  return `${out}${renderTable([['figure', 'unit', 'A', 'B', 'B against A'], ...rows], { indent: '  ' })}\n`;
}
