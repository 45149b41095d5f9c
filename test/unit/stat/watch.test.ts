// render/stat_watch.ts: rates between two samples and their line.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  isoLocalTime,
  rateDecimals,
  renderWatchHeader,
  renderWatchJson,
  renderWatchLine,
  watchRates,
  type WatchPoint,
} from '../../../src/render/stat_watch.js';

const point = (atMs: number, hit: number, free: number | null): WatchPoint => ({
  atMs,
  nodes: new Map([
    [
      0,
      {
        counters: { numa_hit: hit, numa_miss: 4, numa_foreign: 0, interleave_hit: 1, local_node: hit, other_node: 4 },
        freeBytes: free,
      },
    ],
  ]),
});

test('rates are counter deltas per second; free memory is the latest value', () => {
  const r = watchRates(point(1000, 100, 1), point(3000, 700, 5 * 1048576));
  assert.equal(r.intervalSeconds, 2);
  assert.deepEqual(r.nodes['0'], {
    numa_hit: 300,
    numa_miss: 0,
    numa_foreign: 0,
    interleave_hit: 0,
    local_node: 300,
    other_node: 0,
    freeBytes: 5 * 1048576,
  });
});

test('a counter that went backwards (reset) reads 0, a missing one "-"', () => {
  const a = point(0, 500, null);
  const b: WatchPoint = { atMs: 1000, nodes: new Map([[0, { counters: { numa_hit: 100 }, freeBytes: null }]]) };
  const r = watchRates(a, b);
  assert.equal(r.nodes['0']!['numa_hit'], 0);
  assert.equal(r.nodes['0']!['numa_miss'], null);
  assert.match(renderWatchLine(r, '12:00:00'), /^12:00:00\s+0\s+-\s+-\s+-\s+-\s+-\s+-\n$/);
});

test('the header names each node over its columns, without trailing spaces', () => {
  const [l1, l2] = renderWatchHeader([0, 2]).split('\n');
  assert.match(l1!, /^time\s+node0\s+node2$/);
  assert.match(l2!, /hit\/s\s+miss\/s\s+frgn\/s\s+intl\/s\s+local\/s\s+other\/s\s+freeMB\s+hit\/s/);
});

test('--json lines: rates rounded to what whole-page counters resolve over the interval', () => {
  // 3.3 s: one page is 0.3/s, so one decimal; never 27233.244708378894.
  const r = watchRates(point(0, 0, null), point(3300.4, 89870, null));
  assert.equal(r.intervalSeconds, 3.3);
  assert.equal(r.nodes['0']!['numa_hit'], 27233.3);
  assert.equal(rateDecimals(1), 0);
  assert.equal(rateDecimals(0.5), 0);
  assert.equal(rateDecimals(5), 1);
  assert.equal(rateDecimals(2), 0);
  assert.equal(rateDecimals(100), 2);
  assert.equal(watchRates(point(0, 0, null), point(1000.7, 1234, null)).nodes['0']!['numa_hit'], 1233);
});

test('--json lines: the time is ISO 8601 with its date and UTC offset', () => {
  const at = new Date('2026-12-02T00:35:40.789Z');
  const t = isoLocalTime(at);
  assert.match(t, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/);
  assert.equal(new Date(t).getTime(), Math.floor(at.getTime() / 1000) * 1000, 'the same instant, to the second');
  const line = JSON.parse(renderWatchJson(watchRates(point(0, 0, null), point(1000, 5, null)), t)) as { time: string };
  assert.equal(line.time, t);
});

test('tiering counters (nodeN/vmstat pgpromote_success, pgdemote_* summed) get rates and columns where the kernel has them', async () => {
  const { tieringCounters } = await import('../../../src/model/tiering_counters.js');
  assert.deepEqual(
    tieringCounters({
      nr_free_pages: 1,
      pgpromote_success: 10,
      pgpromote_candidate: 30,
      pgdemote_kswapd: 4,
      pgdemote_direct: 2,
      pgdemote_khugepaged: 0,
    }),
    { pgpromote_success: 10, pgdemote: 6 },
  );
  assert.deepEqual(tieringCounters({ nr_free_pages: 1 }), {});
  const tiered = (atMs: number, promoted: number, demoted: number): WatchPoint => {
    const p = point(atMs, 100, 1048576);
    const n = p.nodes.get(0)!;
    return {
      atMs,
      nodes: new Map([[0, { ...n, counters: { ...n.counters, pgpromote_success: promoted, pgdemote: demoted } }]]),
    };
  };
  const r = watchRates(tiered(0, 100, 50), tiered(2000, 700, 250));
  assert.equal(r.nodes['0']!['pgpromote_success'], 300);
  assert.equal(r.nodes['0']!['pgdemote'], 100);
  const { hasTiering } = await import('../../../src/render/stat_watch.js');
  assert.equal(hasTiering(tiered(0, 1, 1)), true);
  assert.equal(hasTiering(point(0, 1, 1)), false);
  assert.match(renderWatchHeader([0], { tiering: true }), /other\/s  promo\/s   demo\/s   freeMB/);
  assert.doesNotMatch(renderWatchHeader([0]), /promo/);
  assert.match(renderWatchLine(r, '10:00:00'), /\s300\s+100\s+1\n$/);
});
