// render/stat_watch.ts: rates between two samples and their line.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderWatchHeader, renderWatchLine, watchRates, type WatchPoint } from '../../../src/render/stat_watch.js';

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
