// The bench reports in a real browser: Debian's chromium renders report.html headless, offline
// (every host name resolves to nothing), and takes a screenshot. The screenshots are kept in
// NUMAKIT_ARTIFACTS (default: numakit-artifacts under the temp directory) to be looked at.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { renderReportHtml } from '../../../src/render/bench/report_html.ts';
import { skipUnlessTools, toolPath } from '../../helpers/tools.ts';
import { threeVariantAb, twoNodeMem } from './results.ts';

const skip = skipUnlessTools('chromium');
const CHROMIUM = toolPath('chromium') ?? 'chromium';

function chromium(args: string[], profile: string) {
  return spawnSync(
    CHROMIUM,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--hide-scrollbars',
      `--user-data-dir=${profile}`,
      '--host-resolver-rules=MAP * ~NOTFOUND',
      '--no-first-run',
      '--disable-extensions',
      ...args,
    ],
    { encoding: 'utf8', timeout: 90_000 },
  );
}

/** Width, height and the number of distinct colours of an 8-bit RGB(A) PNG. */
function pngStats(png: Buffer): { width: number; height: number; colours: number } {
  assert.equal(png.subarray(1, 4).toString(), 'PNG');
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  const channels = png[25] === 6 ? 4 : 3;
  const idat: Buffer[] = [];
  for (let at = 8; at < png.length; ) {
    const len = png.readUInt32BE(at);
    if (png.toString('latin1', at + 4, at + 8) === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + len));
    at += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const prev = Buffer.alloc(stride);
  const cur = Buffer.alloc(stride);
  const colours = new Set<number>();
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? cur[x - channels]! : 0;
      const b = prev[x]!;
      const c = x >= channels ? prev[x - channels]! : 0;
      const p = a + b - c;
      const pred =
        f === 0
          ? 0
          : f === 1
            ? a
            : f === 2
              ? b
              : f === 3
                ? (a + b) >> 1
                : Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c)
                  ? a
                  : Math.abs(p - b) <= Math.abs(p - c)
                    ? b
                    : c;
      cur[x] = (line[x]! + pred) & 0xff;
    }
    if (y % 4 === 0)
      for (let x = 0; x < stride; x += channels * 4) colours.add((cur[x]! << 16) | (cur[x + 1]! << 8) | cur[x + 2]!);
    cur.copy(prev);
  }
  return { width, height, colours: colours.size };
}

test('report.html renders in chromium, offline: the charts are drawn (screenshot kept)', {
  skip,
  timeout: 240_000,
}, () => {
  const dir = mkdtempSync(join(tmpdir(), 'numakit-report-'));
  const keep = process.env['NUMAKIT_ARTIFACTS'] ?? join(tmpdir(), 'numakit-artifacts');
  mkdirSync(keep, { recursive: true });
  try {
    for (const [name, html] of [
      ['bench-mem-report', renderReportHtml(twoNodeMem())],
      ['bench-ab-report', renderReportHtml(threeVariantAb())],
    ] as const) {
      const page = join(dir, `${name}.html`);
      writeFileSync(page, html);
      const dom = chromium(['--dump-dom', `file://${page}`], join(dir, 'profile-dom'));
      assert.equal(dom.status, 0, dom.stderr);
      assert.equal(
        (dom.stdout.match(/<svg /g) ?? []).length,
        (html.match(/<svg /g) ?? []).length,
        'the browser parsed every chart',
      );
      const shot = join(keep, `${name}.png`);
      const r = chromium(
        [`--screenshot=${shot}`, '--window-size=1200,1500', `file://${page}`],
        join(dir, 'profile-shot'),
      );
      assert.equal(r.status, 0, r.stderr);
      const s = pngStats(readFileSync(shot));
      assert.deepEqual([s.width, s.height], [1200, 1500]);
      assert.ok(s.colours > 40, `${shot}: only ${s.colours} colours: the charts were not drawn`);
      console.log(`# screenshot: ${shot} (${s.colours} colours sampled)`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
