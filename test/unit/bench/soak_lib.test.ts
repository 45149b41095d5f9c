// bench/soak_lib.mjs judges a soak run: these runs are made up so that the verdict is known. A
// leak (RSS or heap rising under the collector's saw, fds climbing, the journal growing) fails;
// the same saw without a trend, and a noisy flat line, pass.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  analyse,
  floor,
  parseSoakOutput,
  renderSvg,
  renderTable,
  slope,
  type SoakRun,
} from '../../../bench/soak_lib.mjs';

const MiB = 2 ** 20;

/** A 30-minute run sampled every 5 s; `f(t, i)` adds or replaces series. */
function run(f: (t: number, i: number) => Record<string, number>): SoakRun {
  const samples = Array.from({ length: 360 }, (_, i) => {
    const t = i * 5;
    const saw = ((i % 12) / 12) * 6 * MiB; // a collector's saw: 0-6 MiB
    return {
      t,
      serve_rss: 60 * MiB + saw,
      serve_heap: 8 * MiB + saw,
      serve_fds: 20 + (i % 3),
      serve_statfds: 25,
      serve_cpu: t * 0.02,
      serve_scrape: 0.2 + (i % 5) * 0.01,
      concurrent_scrape_max: 0.5,
      agent_rss: 70 * MiB + saw,
      agent_heap: 9 * MiB + saw,
      agent_fds: 30,
      agent_statfds: 25,
      agent_cpu: t * 0.05,
      journal_bytes: 2000,
      state_files: 3,
      ...f(t, i),
    };
  });
  return { seconds: 1800, rate: 60, scrapers: 20, slow: 4, samples };
}

const failed = (r: SoakRun) =>
  analyse(r)
    .rows.filter((x) => !x.pass)
    .map((x) => x.key);

describe('soak verdicts', () => {
  it('slope and floor: a straight line and the floor of a saw', () => {
    assert.equal(slope([0, 1, 2, 3].map((t) => ({ t, y: 5 + 2 * t }))), 2);
    const saw = Array.from({ length: 80 }, (_, i) => ({ t: i, y: (i % 10) + i * 0.5 }));
    assert.ok(Math.abs(slope(floor(saw)) - 0.5) < 0.05, String(slope(floor(saw))));
  });

  it('a steady run under a collector saw passes everything', () => {
    const a = analyse(run(() => ({})));
    assert.deepEqual(
      a.rows.filter((r) => !r.pass),
      [],
    );
    assert.match(renderTable(a), /\nPASS \(warm-up 120 s left out\)\n$/);
    assert.match(
      renderSvg(
        run(() => ({})),
        a,
      ),
      /^<svg [\s\S]*<polyline [\s\S]*<\/svg>\n$/,
    );
  });

  it('each leak fails its own series only', () => {
    assert.deepEqual(failed(run((t) => ({ serve_rss: 60 * MiB + (t / 3600) * 40 * MiB }))), ['serve_rss']);
    assert.deepEqual(
      failed(run((t, i) => ({ agent_heap: 9 * MiB + ((i % 12) / 12) * 6 * MiB + (t / 3600) * 20 * MiB }))),
      ['agent_heap'],
    );
    assert.deepEqual(failed(run((_, i) => ({ agent_fds: 30 + Math.floor(i / 40) }))), ['agent_fds']);
    assert.deepEqual(failed(run((_, i) => ({ agent_statfds: 25 + Math.floor(i / 10) }))), ['agent_statfds']);
    assert.deepEqual(failed(run((t) => ({ journal_bytes: 2000 + t * 200 }))), ['journal_bytes']);
    assert.deepEqual(failed(run((_, i) => ({ state_files: 3 + Math.floor(i / 10) }))), ['state_files']);
    assert.deepEqual(failed(run((t) => ({ serve_cpu: t * 0.02 + (t * t) / 1e4 }))), ['serve_cpu']);
    assert.deepEqual(failed(run((t) => ({ serve_scrape: 0.2 + t / 1000 }))), ['serve_scrape']);
    assert.deepEqual(failed(run(() => ({ concurrent_scrape_max: 9 }))), ['concurrent_scrape_max']);
  });

  it('a burst of processes or scrapers opens fds and closes them: not a leak; fds kept open are', () => {
    const burst = (i: number) => (i % 40 === 7 ? 25 : 0);
    assert.deepEqual(failed(run((_, i) => ({ agent_statfds: 25 + burst(i), serve_statfds: 25 + burst(i + 3) }))), []);
    assert.deepEqual(failed(run((_, i) => ({ agent_fds: 30 + (i > 200 ? burst(i) : 0) }))), []);
    assert.deepEqual(failed(run((_, i) => ({ serve_fds: 30 + (i > 200 ? 8 : 0) + burst(i) }))), ['serve_fds']);
  });

  it("a short run (CI's 4 minutes): warm-up left out, growth judged on the halves' lows", () => {
    // RSS climbing for 100 s (V8's young generation, the JIT), then a saw with a collection late
    // in the window: a fit over 8 floors of 2 minutes would tilt; the lows do not.
    const short = (f: (t: number, i: number) => Record<string, number>): SoakRun => {
      const r = run(f);
      return { ...r, seconds: 240, samples: r.samples.slice(0, 49) };
    };
    const warm = (t: number, i: number) => ({
      serve_rss: 50 * MiB + Math.min(t, 100) * 0.2 * MiB + (i % 5) * 2 * MiB + (t > 200 ? 0 : 3 * MiB),
    });
    const a = analyse(short(warm));
    assert.equal(a.warmupSeconds, 120);
    assert.deepEqual(
      a.rows.filter((x) => !x.pass).map((x) => x.key),
      [],
    );
    assert.deepEqual(failed(short((t) => ({ agent_rss: 70 * MiB + Math.max(0, t - 120) * 0.2 * MiB }))), ['agent_rss']);
    assert.deepEqual(failed(short((t) => ({ serve_fds: 20 + Math.floor(Math.max(0, t - 120) / 10) }))), ['serve_fds']);
  });

  it('a series with no samples fails, named', () => {
    const r = analyse(run(() => ({ serve_heap: NaN })));
    assert.deepEqual(
      r.rows.filter((x) => !x.pass).map((x) => [x.key, x.note]),
      [['serve_heap', 'fewer than 3 samples']],
    );
  });

  it("the run read from the guest's output: samples line by line, the end line without them, a cut run marked", () => {
    const start = 'SOAK-START {"seconds":300,"sampleSeconds":5,"rate":60,"scrapers":20,"slow":4}';
    const samples = [1, 2, 3, 4].map((t) => `SOAK-SAMPLE {"t":${t * 5},"serve_rss":${t}}`);
    const end = 'SOAK {"seconds":300,"rate":60,"scrapers":20,"slow":4,"counts":{"short":290}}';
    const out = ['lab: booting', start, samples[0], 'SOAK-ERROR sample: ENOENT', ...samples.slice(1), end, ''].join(
      '\n',
    );
    const whole = parseSoakOutput(out)!;
    assert.deepEqual(
      whole.run.samples.map((x) => x.t),
      [5, 10, 15, 20],
    );
    assert.deepEqual(whole.run['counts'], { short: 290 });
    assert.equal(whole.run['cutShort'], undefined);
    assert.deepEqual(whole.errors, ['ERROR sample: ENOENT']);
    const cut = parseSoakOutput([start, ...samples].join('\n'))!;
    assert.deepEqual([cut.run['cutShort'], cut.run.seconds, cut.run.samples.length], [true, 20, 4]);
    assert.equal(parseSoakOutput('lab: the guest did not boot\n'), null);
  });
});
