// What a soak run (test/lab/guest-helpers/soak.mjs) shows: per series, its level after the
// warm-up, its slope per hour and a pass/fail against the stated limit; and an SVG of every
// series over time; the run read from the guest's output. Used by bench/soak.mjs and
// test/lab/soak.lab.test.ts.
//
// Slopes are least-squares fits. For memory (RSS, heap) and fds, which a collector or a burst
// saws up and down, the fit is over the floor: the lowest value of each eighth of the window,
// what survives a collection. A limit is "growth over the window" = slope x window, allowed a
// fixed noise tolerance plus a rate per hour, so a short run is judged on the tolerance and a
// long one on the rate: e.g. RSS may grow at most 8 MiB + 4 MiB/h x hours. A window under 10
// minutes has too few floors to fit (one late collection tilts the line by megabytes): there
// "growth" is how far the lowest value of its last half is above the lowest of its first half,
// an alarm for a gross leak (the long run is the one that judges a rate).

const MiB = 1 << 20;

/** Seconds of warm-up left out of every fit: half the run, at most 120 s (V8's young generation and the JIT settle in the first minutes). */
export function warmupSeconds(seconds) {
  return Math.min(120, seconds / 2);
}

/** Below this window (seconds), growth is judged on the halves' lows, not on a fit. */
export const SHORT_WINDOW = 600;

/** Least-squares slope of y over t (per second); 0 for fewer than 2 points. */
export function slope(points) {
  const n = points.length;
  if (n < 2) return 0;
  const mt = points.reduce((a, p) => a + p.t, 0) / n;
  const my = points.reduce((a, p) => a + p.y, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.t - mt) * (p.y - my);
    den += (p.t - mt) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

/** The lowest point of each of `k` equal slices of the points (in time order). */
export function floor(points, k = 8) {
  if (points.length < 2 * k) return points;
  const out = [];
  for (let i = 0; i < k; i++) {
    const slice = points.slice(Math.floor((i * points.length) / k), Math.floor(((i + 1) * points.length) / k));
    out.push(slice.reduce((a, p) => (p.y < a.y ? p : a)));
  }
  return out;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.floor(s.length / 2)];
};

/** CPU use (share of one CPU) between consecutive samples of a cumulative CPU-seconds series. */
function cpuRate(samples, key) {
  const out = [];
  for (let i = 1; i < samples.length; i++) {
    const dt = samples[i].t - samples[i - 1].t;
    if (dt > 0 && Number.isFinite(samples[i][key]))
      out.push({ t: samples[i].t, y: (samples[i][key] - samples[i - 1][key]) / dt });
  }
  return out;
}

/**
/**
 * The limits, one per series: `kind` says how it is judged.
 *   growth: fitted growth over the window <= tol + perHour x hours (memory and fds: on the floor)
 *   ratio:  the median of the last third <= the first third's x factor + tol (CPU, scrape time)
 *   max:    never above tol (journal size, state files, the slowest concurrent scrape)
 * A daemon's fds are two series: `_fds` its own (sockets, timers, files) and `_statfds` the
 * /proc/PID/stat files its samplers keep open for the processes alive (a cache). Both rise with a
 * burst (20 concurrent scrapers and slow clients hold sockets; ten short processes hold stat
 * files) and fall after it: both are judged like memory, on their floor, which a leak raises.
 */
export const LIMITS = [
  { key: 'serve_rss', unit: 'MiB', scale: MiB, kind: 'growth', floor: true, tol: 8, perHour: 4 },
  { key: 'serve_heap', unit: 'MiB', scale: MiB, kind: 'growth', floor: true, tol: 4, perHour: 2 },
  { key: 'serve_fds', unit: 'fds', scale: 1, kind: 'growth', floor: true, tol: 4, perHour: 4 },
  { key: 'serve_statfds', unit: 'fds', scale: 1, kind: 'growth', floor: true, tol: 8, perHour: 8 },
  { key: 'serve_cpu', unit: 'CPU', scale: 1, kind: 'ratio', rate: true, factor: 1.5, tol: 0.02 },
  { key: 'serve_scrape', unit: 's', scale: 1, kind: 'ratio', factor: 2, tol: 0.05 },
  { key: 'concurrent_scrape_max', unit: 's', scale: 1, kind: 'max', tol: 8 },
  { key: 'agent_rss', unit: 'MiB', scale: MiB, kind: 'growth', floor: true, tol: 8, perHour: 4 },
  { key: 'agent_heap', unit: 'MiB', scale: MiB, kind: 'growth', floor: true, tol: 4, perHour: 2 },
  { key: 'agent_fds', unit: 'fds', scale: 1, kind: 'growth', floor: true, tol: 4, perHour: 4 },
  { key: 'agent_statfds', unit: 'fds', scale: 1, kind: 'growth', floor: true, tol: 8, perHour: 8 },
  { key: 'agent_cpu', unit: 'CPU', scale: 1, kind: 'ratio', rate: true, factor: 1.5, tol: 0.02 },
  { key: 'journal_bytes', unit: 'KiB', scale: 1024, kind: 'max', tol: 256 },
  { key: 'state_files', unit: 'files', scale: 1, kind: 'max', tol: 16 },
];

function describeLimit(l) {
  switch (l.kind) {
    case 'growth':
      return `growth <= ${l.tol} + ${l.perHour}/h ${l.unit}`;
    case 'ratio':
      return `last third <= ${l.factor} x first third + ${l.tol} ${l.unit}`;
    case 'max':
      return `<= ${l.tol} ${l.unit}`;
  }
}

/** Judges every series of a run; `limits` defaults to LIMITS. */
export function analyse(run, limits = LIMITS) {
  const warm = warmupSeconds(run.seconds);
  const rows = [];
  for (const l of limits) {
    const all = l.rate ? cpuRate(run.samples, l.key) : run.samples.map((s) => ({ t: s.t, y: s[l.key] }));
    const pts = all.filter((p) => p.t >= warm && Number.isFinite(p.y)).map((p) => ({ t: p.t, y: p.y / l.scale }));
    if (pts.length < 3) {
      rows.push({ key: l.key, unit: l.unit, limit: describeLimit(l), pass: false, note: 'fewer than 3 samples' });
      continue;
    }
    const hours = (pts.at(-1).t - pts[0].t) / 3600;
    const perHour = slope(l.floor ? floor(pts) : pts) * 3600;
    const third = Math.max(1, Math.floor(pts.length / 3));
    const first = pts.slice(0, third).map((p) => p.y);
    const last = pts.slice(-third).map((p) => p.y);
    const maxOf = (ps) => Math.max(...ps.map((p) => p.y));
    let pass;
    let seen;
    switch (l.kind) {
      case 'growth': {
        const lows = (ps) => Math.min(...ps.map((p) => p.y));
        const half = Math.floor(pts.length / 2);
        seen = hours * 3600 < SHORT_WINDOW ? lows(pts.slice(half)) - lows(pts.slice(0, half)) : perHour * hours;
        pass = seen <= l.tol + l.perHour * hours;
        break;
      }
      case 'ratio':
        seen = median(last);
        pass = seen <= median(first) * l.factor + l.tol;
        break;
      case 'max':
        seen = maxOf(pts);
        pass = seen <= l.tol;
        break;
    }
    rows.push({
      key: l.key,
      unit: l.unit,
      start: median(first),
      end: median(last),
      perHour,
      seen,
      limit: describeLimit(l),
      pass,
    });
  }
  return { rows, pass: rows.every((r) => r.pass), warmupSeconds: warm };
}

const fmt = (x) =>
  x === undefined || !Number.isFinite(x) ? '-' : Math.abs(x) >= 100 ? x.toFixed(0) : x.toPrecision(3);

/** The verdict as a table. */
export function renderTable(a) {
  const head = ['series', 'unit', 'start', 'end', 'slope/h', 'judged', 'limit', ''];
  const body = a.rows.map((r) => [
    r.key,
    r.unit,
    fmt(r.start),
    fmt(r.end),
    fmt(r.perHour),
    fmt(r.seen),
    r.limit + (r.note ? ` (${r.note})` : ''),
    r.pass ? 'PASS' : 'FAIL',
  ]);
  const w = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells) =>
    cells
      .map((c, i) => c.padEnd(w[i]))
      .join('  ')
      .trimEnd();
  return `${[line(head), ...body.map(line)].join('\n')}\n${a.pass ? 'PASS' : 'FAIL'} (warm-up ${fmt(a.warmupSeconds)} s left out)\n`;
}

const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** Every limited series over time, one small chart each (grey: the warm-up). */
export function renderSvg(run, a, limits = LIMITS) {
  const W = 300;
  const H = 120;
  const cols = 3;
  const charts = limits.map((l, i) => {
    const pts = (l.rate ? cpuRate(run.samples, l.key) : run.samples.map((s) => ({ t: s.t, y: s[l.key] })))
      .filter((p) => Number.isFinite(p.y))
      .map((p) => ({ t: p.t, y: p.y / l.scale }));
    const x0 = (i % cols) * (W + 20) + 10;
    const y0 = Math.floor(i / cols) * (H + 40) + 30;
    const tMax = Math.max(1, ...pts.map((p) => p.t));
    const yMax = Math.max(1e-9, ...pts.map((p) => p.y)) * 1.1;
    const px = (p) => `${(x0 + (p.t / tMax) * W).toFixed(1)},${(y0 + H - (p.y / yMax) * H).toFixed(1)}`;
    const row = a.rows.find((r) => r.key === l.key);
    const warmX = x0 + (a.warmupSeconds / tMax) * W;
    return [
      `<rect x="${x0}" y="${y0}" width="${W}" height="${H}" fill="none" stroke="#ccc"/>`,
      `<rect x="${x0}" y="${y0}" width="${Math.max(0, warmX - x0).toFixed(1)}" height="${H}" fill="#eee"/>`,
      `<polyline fill="none" stroke="${row?.pass ? '#1a7f37' : '#cf222e'}" stroke-width="1.5" points="${pts.map(px).join(' ')}"/>`,
      `<text x="${x0}" y="${y0 - 6}" font-size="12">${esc(`${l.key} (${l.unit}), max ${fmt(yMax / 1.1)}: ${row?.pass ? 'PASS' : 'FAIL'}`)}</text>`,
    ].join('\n');
  });
  const rows = Math.ceil(limits.length / cols);
  const width = cols * (W + 20);
  const height = rows * (H + 40) + 30;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif">
<text x="10" y="16" font-size="13">numakit soak: ${run.seconds} s, ${run.rate} processes/min, ${run.scrapers} concurrent scrapers, ${run.slow} slow clients a sample (x: seconds up to ${fmt(Math.max(...run.samples.map((s) => s.t)))})</text>
${charts.join('\n')}
</svg>
`;
}

/**
 * A run from the guest's output (test/lab/guest-helpers/soak.mjs): `SOAK-START {options}`, one
 * `SOAK-SAMPLE {row}` a sample as it is taken, and at the end `SOAK {result}` without the samples
 * (a 30-minute run's samples on one line were cut on the way out of the guest). Without the end
 * line (the lab's timeout, a daemon that ended), what was sampled is the run, marked cutShort.
 * `errors` are the harness's SOAK-ERROR and SOAK-FATAL lines. null when it reported nothing.
 */
export function parseSoakOutput(stdout) {
  const lines = stdout.split('\n');
  const tagged = (tag) => lines.filter((l) => l.startsWith(`${tag} `)).map((l) => l.slice(tag.length + 1));
  const samples = tagged('SOAK-SAMPLE').map((l) => JSON.parse(l));
  const errors = lines.filter((l) => /^SOAK-(ERROR|FATAL) /.test(l)).map((l) => l.slice(5));
  const end = tagged('SOAK')[0];
  const start = tagged('SOAK-START')[0];
  if (end !== undefined) return { run: { ...JSON.parse(end), samples }, errors };
  if (start === undefined || samples.length < 3) return null;
  const run = {
    ...JSON.parse(start),
    seconds: samples.at(-1).t,
    cutShort: true,
    agentMemoryMax: null,
    counts: {},
    journalAfter: { files: NaN, bytes: NaN },
    daemons: {},
    samples,
  };
  return { run, errors };
}
