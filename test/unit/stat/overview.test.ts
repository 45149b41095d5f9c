// The overview's stat section: miss share and the processes with most remote memory.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { statOverview } from '../../../src/cli/stat_overview.js';
import type { Context } from '../../../src/cli/context.js';
import { OVERVIEW_SECTIONS, type OverviewSection } from '../../../src/cli/overview_sections.js';
import { runMain } from '../../helpers/cli.js';
import { missShare } from '../../../src/render/stat_overview.js';
import { fixtureRoot } from './helpers.js';

test('missShare is numa_miss over numa_hit + numa_miss, null without allocations', () => {
  assert.equal(missShare({ numa_hit: 75, numa_miss: 25 }), 25);
  assert.equal(missShare({ numa_hit: 0, numa_miss: 0 }), null);
});

function ctxOf(name: string): Context {
  return { root: fixtureRoot(name), rootGiven: true, out: () => {}, err: () => {}, isTTY: false, color: false };
}

test('the section names the miss share, the worst node and the processes with most remote memory', async () => {
  const section = await statOverview(ctxOf('four-node'));
  assert.ok(section !== null);
  const lines = section.text.split('\n');
  // 34579 misses / (121235567 hits + 34579 misses) over the four nodes; node 0 has 12 of 81234579
  assert.equal(lines[0], 'stat: numa_miss 0.03% of allocations since boot (most on node 1: 0.09%)');
  assert.match(lines[2]!, /^\s+1403 hugeapp\s+1 GiB remote\s+locality 0\.00$/);
  assert.match(lines[3]!, /^\s+1302 java\s+586\.4 MiB remote\s+locality 0\.25$/);
  // postgres ran on nodes 0 and 1 with memory on both: 46% of it is remote from where it ran.
  assert.match(lines[4]!, /^\s+1201 postgres\s+64\.8 MiB remote\s+locality 0\.54$/);
  assert.equal(lines.length, 7);
  const data = section.data as {
    mostRemote: { pid: number; remoteBytes: number }[];
    nodes: { node: number; missPercent: number | null }[];
  };
  assert.deepEqual(
    data.mostRemote.map((p) => p.pid),
    [1403, 1302, 1201],
    '--json has the same processes',
  );
  assert.equal(data.nodes.length, 4);
});

test('no NUMA statistics: the section says why in one line, and --json has stat: null', async () => {
  const section = await statOverview(ctxOf('../../fixtures/stat/four-node/proc'));
  assert.ok(section !== null, 'the reason is shown, not swallowed');
  assert.match(section.text, /^stat: not shown: .*no sys\/devices\/system\/node\/node\* directories: .*\n$/);
  assert.equal(section.data, null);
});

test('a section that throws is named in one line (its stack under NUMAKIT_DEBUG=1) and counted; the rest is shown', async () => {
  const broken: OverviewSection = {
    key: 'broken',
    run: async () => {
      throw new TypeError('a reader met something new');
    },
  };
  OVERVIEW_SECTIONS.push(broken);
  try {
    const text = await runMain(['--example', 'spark-2s']);
    assert.equal(text.code, 0, text.err);
    assert.equal(text.err, 'numakit: overview: section broken failed: TypeError: a reader met something new\n');
    assert.match(text.out, /^stat: numa_miss/m, 'the other sections are shown');
    process.env['NUMAKIT_DEBUG'] = '1';
    const debug = await runMain(['--example', 'spark-2s']).finally(() => delete process.env['NUMAKIT_DEBUG']);
    assert.match(
      debug.err,
      /^numakit: overview: section broken failed: TypeError: a reader met something new\n\s*TypeError: a reader[^\n]*\n\s+at /,
    );
    const json = await runMain(['--example', 'spark-2s', '--json']);
    const obj = JSON.parse(json.out) as { broken: unknown; sectionFailures: unknown; doctor: unknown };
    assert.equal(obj.broken, null);
    assert.deepEqual(obj.sectionFailures, [
      { section: 'broken', error: 'section broken failed: TypeError: a reader met something new' },
    ]);
    assert.notEqual(obj.doctor, null);
  } finally {
    OVERVIEW_SECTIONS.splice(OVERVIEW_SECTIONS.indexOf(broken), 1);
  }
});
