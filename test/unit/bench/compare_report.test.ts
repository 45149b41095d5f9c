import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareResults } from '../../../src/bench/compare.ts';
import { parseResult } from '../../../src/bench/result_file.ts';
import type { MemResult } from '../../../src/model/bench.ts';
import { renderAbText } from '../../../src/render/bench/ab_text.ts';
import { renderReportHtml } from '../../../src/render/bench/report_html.ts';
import { renderReportMarkdown } from '../../../src/render/bench/report_md.ts';
import { assertGolden, runMain } from '../../helpers/cli.ts';
import { threeVariantAb, twoNodeMem } from './results.ts';

function faster(r: MemResult, f: number): MemResult {
  return {
    ...r,
    settings: { ...r.settings, numaBalancing: 1 },
    bandwidth: r.bandwidth.map((c) => ({
      ...c,
      kernels: Object.fromEntries(
        Object.entries(c.kernels).map(([k, v]) => [k, { ...v!, seconds: v!.seconds.map((s) => s / f) }]),
      ),
    })),
  };
}

test('compare mem: per cell and kernel, B against A with an interval; settings that changed', () => {
  const c = compareResults(twoNodeMem(), faster(twoNodeMem(), 1.3), { a: 'a.json', b: 'b.json' });
  assert.deepEqual(c.changed, ['numaBalancing: 0 -> 1']);
  const read = c.rows.find((r) => r.what === 'read 0->1')!;
  assert.ok(Math.abs(read.ratio!.value - 1.3) < 1e-9);
  assert.match(read.verdict, /^B is 1\.30x \[1\.\d\d, 1\.\d\d\] better$/);
  const lat = c.rows.find((r) => r.what === 'latency 0->0')!;
  assert.match(lat.verdict, /^no difference measured \(1\.00x/);
});

test('compare ab: variants by name, wall time lower is better', () => {
  const a = threeVariantAb();
  const b = { ...a, runs: a.runs.map((r) => (r.variant === 'remote' ? { ...r, wallS: r.wallS * 0.8 } : r)) };
  const c = compareResults(a, b, { a: 'a', b: 'b' });
  assert.deepEqual(
    c.rows.map((r) => r.what),
    ['default', 'local', 'remote'],
  );
  assert.match(c.rows[2]!.verdict, /^B is 1\.25x \[[\d.]+, [\d.]+\] better$/);
  assert.match(c.rows[0]!.verdict, /^no difference measured/);
});

test('bench compare on files: text and JSON; two kinds or a broken file are one line each', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'numakit-compare-'));
  try {
    const f = (name: string, v: unknown) => {
      const p = join(dir, name);
      writeFileSync(p, typeof v === 'string' ? v : JSON.stringify(v));
      return p;
    };
    const a = f('a.json', twoNodeMem());
    const b = f('b.json', faster(twoNodeMem(), 1.3));
    const ok = await runMain(['bench', 'compare', a, b]);
    assert.equal(ok.code, 0, ok.err);
    assert.match(ok.out, /recorded settings that changed: numaBalancing: 0 -> 1/);
    assert.match(ok.out, /read 0->1\s+GB\/s\s+[\d.]+\s+[\d.]+\s+B is 1\.30x/);
    const json = JSON.parse((await runMain(['bench', 'compare', '--json', a, b])).out) as Record<string, unknown>;
    assert.deepEqual(Object.keys(json).slice(0, 3), ['schemaVersion', 'kind', 'of']);
    assert.equal(json['schemaVersion'], 1);
    for (const [args, message, code] of [
      [
        [a, f('ab.json', threeVariantAb())],
        /is a bench-mem result and .* a bench-ab one; compare two of the same kind/,
        1,
      ],
      [[a, f('bad.json', '{"kind": "bench-mem"')], /bad\.json: not valid JSON/, 1],
      [[a, f('other.json', { kind: 'topo' })], /other\.json: not a numakit bench result/, 1],
      [[a, f('v2.json', { ...twoNodeMem(), schemaVersion: 2 })], /v2\.json: schemaVersion 2; this numakit reads 1/, 1],
      [[a, join(dir, 'missing.json')], /missing\.json: cannot read \(ENOENT\)/, 1],
      [[a], /missing A\.json B\.json/, 2],
    ] as const) {
      const r = await runMain(['bench', 'compare', ...args]);
      assert.equal(r.code, code, r.err);
      assert.match(r.err, message);
      assert.equal(r.err.trim().split('\n').length, 1);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('parseResult keeps what it was given', () => {
  assert.deepEqual(parseResult(JSON.stringify(twoNodeMem()), 'x'), twoNodeMem());
});

test('ab text report: table, verdicts, excluded runs', () => {
  const text = renderAbText(threeVariantAb());
  assertGolden('bench/ab-3variants.txt', text);
  assert.match(text, /local: local is 1\.3\dx \[1\.\d\d, 1\.\d\d\] faster than default/);
  assert.match(text, /remote: remote is 1\.30x \[1\.\d\d, 1\.\d\d\] slower than default/);
  assert.match(text, /remote\s+5\/6/);
});

test('REPORT.md: a table per result kind and the full text', () => {
  const md = renderReportMarkdown(twoNodeMem());
  assert.match(md, /^# numakit bench mem/);
  assert.match(md, /\| 0 -> 1 \| 24\.0 \| 19\.2 \| 21\.6 \| 22\.8 \| 151\.0 \| 97\.3% \|/);
  assert.match(renderReportMarkdown(threeVariantAb()), /\| remote \| 5\/6 \| 2\.610 \|/);
});

test('report.html is self-contained: inline SVG and CSS, no script, nothing to fetch', () => {
  for (const html of [renderReportHtml(twoNodeMem()), renderReportHtml(threeVariantAb())]) {
    assert.doesNotMatch(html, /<script|<link|<img|@import|url\(|src=|href=/i);
    const urls = [...html.matchAll(/https?:\/\/[^\s"'<>]+/g)].map((m) => m[0]);
    assert.deepEqual([...new Set(urls)], ['http://www.w3.org/2000/svg'], 'only the SVG namespace');
  }
  const mem = renderReportHtml(twoNodeMem());
  assert.equal((mem.match(/<svg /g) ?? []).length, 6, 'four kernels, idle and loaded latency');
  assert.match(mem, /stroke="#d00"/, 'an unverified cell is outlined');
  assert.equal((renderReportHtml(threeVariantAb()).match(/<svg /g) ?? []).length, 3, 'runs, CPU split, intervals');
});
