// render/top_view.ts: each key of top as a table of (view, key) -> view, and the list a view shows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ProcessSample } from '../../../src/model/stat.js';
import { INITIAL_VIEW, splitKeys, topKey, viewRows, type TopRow, type TopView } from '../../../src/render/top_view.js';
import { renderTopFrame } from '../../../src/render/stat_top.js';

const PIDS = [10, 20, 30];
const pidAt = (i: number) => PIDS[i] ?? null;
const V = INITIAL_VIEW;

const CASES: [string, TopView, string, Partial<TopView> | 'quit'][] = [
  ['m sorts by remote memory', { ...V, sort: 'cpu', selected: 2 }, 'm', { sort: 'remote', selected: 0 }],
  ['l sorts by locality', V, 'l', { sort: 'locality' }],
  ['c sorts by CPU', V, 'c', { sort: 'cpu' }],
  ['r sorts by resident memory', V, 'r', { sort: 'rss' }],
  ['g groups by cgroup', { ...V, selected: 2 }, 'g', { group: true, selected: 0 }],
  ['g again lists processes', { ...V, group: true }, 'g', { group: false }],
  ['/ starts a filter', { ...V, filter: 'old' }, '/', { editing: true, filter: '' }],
  ['typing adds to the filter', { ...V, editing: true, filter: 'po' }, 's', { editing: true, filter: 'pos' }],
  ['q is text while typing', { ...V, editing: true, filter: '' }, 'q', { editing: true, filter: 'q' }],
  ['Backspace removes a character', { ...V, editing: true, filter: 'pos' }, '\x7f', { editing: true, filter: 'po' }],
  ['Enter keeps the filter', { ...V, editing: true, filter: 'java' }, '\r', { editing: false, filter: 'java' }],
  ['Esc while typing clears it', { ...V, editing: true, filter: 'java' }, '\x1b', { editing: false, filter: '' }],
  ['Esc in the list clears a kept filter', { ...V, filter: 'java' }, '\x1b', { filter: '' }],
  ['j moves down', V, 'j', { selected: 1 }],
  ['down arrow moves down', V, '\x1b[B', { selected: 1 }],
  ['j stops at the last row', { ...V, selected: 2 }, 'j', { selected: 2 }],
  ['k moves up', { ...V, selected: 2 }, 'k', { selected: 1 }],
  ['up arrow stops at the top', V, '\x1b[A', { selected: 0 }],
  ['Enter drills into the selected process', { ...V, selected: 1 }, '\r', { drill: 20 }],
  ['d drills too', V, 'd', { drill: 10 }],
  ['Esc leaves the drill-down', { ...V, drill: 20 }, '\x1b', { drill: null }],
  ['Backspace leaves the drill-down', { ...V, drill: 20 }, '\x7f', { drill: null }],
  ['sort keys do nothing in the drill-down', { ...V, drill: 20 }, 'c', { drill: 20, sort: 'remote' }],
  ['? shows the help', V, '?', { help: true }],
  ['? hides it', { ...V, help: true }, '?', { help: false }],
  ['Esc hides it', { ...V, help: true }, '\x1b', { help: false }],
  ['q quits', V, 'q', 'quit'],
  ['Ctrl-C quits while typing', { ...V, editing: true }, '\x03', 'quit'],
  ['q quits from the drill-down', { ...V, drill: 10 }, 'q', 'quit'],
];

for (const [name, from, key, want] of CASES) {
  test(`key: ${name}`, () => {
    const r = topKey(from, key, pidAt);
    if (want === 'quit') return assert.equal(r.quit, true);
    assert.equal(r.quit, false);
    assert.deepEqual(r.view, { ...from, ...want });
  });
}

test('terminal input splits into keys, arrows whole', () => {
  assert.deepEqual(splitKeys('jj\x1b[Bq'), ['j', 'j', '\x1b[B', 'q']);
  assert.deepEqual(splitKeys('\x1b'), ['\x1b']);
});

const sample = (pid: number, comm: string, nodes: Record<string, number>, cpu: number): ProcessSample => ({
  pid,
  comm,
  cmdline: comm,
  threads: 1,
  cpusAllowed: null,
  memsAllowed: null,
  cpuNodes: { 0: cpu },
  lastNodes: [0],
  windowSeconds: 1,
  memory: {
    kind: 'ok',
    totalBytes: Object.values(nodes).reduce((a, b) => a + b, 0),
    nodes: Object.fromEntries(Object.entries(nodes).map(([n, b]) => [n, { totalBytes: b }])),
  } as unknown as ProcessSample['memory'],
});
const row = (s: ProcessSample, remote: number, locality: number | null): TopRow => ({
  sample: s,
  remoteBytes: remote,
  locality,
});
const ROWS = [
  row(sample(1, 'postgres', { 0: 100, 1: 900 }, 0.5), 900, 0.1),
  row(sample(2, 'java', { 0: 5000 }, 0.1), 0, 1),
  row(sample(3, 'redis', { 0: 50, 1: 60 }, 2), 60, 0.45),
  row(sample(4, 'kworker', {}, 0), 0, null),
];
const CG: Record<number, string> = { 1: '/system.slice/postgresql.service', 3: '/system.slice/redis.service' };
const pids = (v: Partial<TopView>) => viewRows({ ...V, ...v }, ROWS, (p) => CG[p] ?? null).map((r) => r.sample.pid);

test('the list sorts by each key (ties: more memory first) and filters by name, pid or cgroup', () => {
  assert.deepEqual(pids({ sort: 'remote' }), [1, 3, 2, 4]);
  assert.deepEqual(pids({ sort: 'locality' }), [1, 3, 2, 4]);
  assert.deepEqual(pids({ sort: 'rss' }), [2, 1, 3, 4]);
  assert.deepEqual(pids({ sort: 'cpu' }), [3, 1, 2, 4]);
  assert.deepEqual(pids({ filter: 'RED' }), [3]);
  assert.deepEqual(pids({ filter: '2' }), [2]);
  assert.deepEqual(pids({ filter: 'system.slice' }), [1, 3]);
  assert.deepEqual(pids({ filter: 'nothing' }), []);
});

test('the frame shows the help, the status line and a drill-down', () => {
  const base = { time: '12:00:00', intervalSeconds: 1, nodes: [], procs: [], processCount: 0, width: 120, height: 30 };
  assert.match(renderTopFrame({ ...base, view: { ...V, help: true } }).join('\n'), /^  \/   filter: type a name/m);
  assert.match(renderTopFrame({ ...base, view: { ...V, filter: 'java' } })[1]!, /sort: remote memory  filter 'java'/);
  const detail = renderTopFrame({
    ...base,
    view: { ...V, drill: 7 },
    detail: {
      pid: 7,
      comm: 'app',
      cgroup: '/a.slice',
      threads: [{ tid: 8, comm: 'worker', state: 'R', cpu: 3, node: 1, cpuSeconds: 1.5 }],
      mappings: [{ address: '7f00', what: 'heap', policy: 'bind:1', nodes: { 1: 2 ** 20 }, totalBytes: 2 ** 20 }],
      mappingsWhy: '',
    },
  }).join('\n');
  assert.match(detail, /^process 7 \(app\)  cgroup \/a\.slice  1 thread\(s\)/m);
  assert.match(detail, /^      8 worker          R        3     1  1\.50s$/m);
  assert.match(detail, /^7f00 .* bind:1 .*1:1(\.0)?MiB.*heap$/m);
  assert.match(renderTopFrame({ ...base, view: { ...V, drill: 9 }, detail: null }).join('\n'), /process 9 is gone/);
});

test('g: processes added up by cgroup, most remote memory first, and drawn as one line each', async () => {
  const { cgroupTotals } = await import('../../../src/policy/cgroup_rank.js');
  const cg: Record<number, string> = { ...CG, 2: '/system.slice/postgresql.service' };
  const totals = cgroupTotals(ROWS, (p) => cg[p] ?? null);
  assert.deepEqual(
    totals.map((t) => [t.path, t.processes, t.memoryBytes, t.remoteBytes]),
    [
      ['/system.slice/postgresql.service', 2, 6000, 900],
      ['/system.slice/redis.service', 1, 110, 60],
      ['?', 1, 0, 0],
    ],
  );
  assert.equal(totals[0]!.locality, 1 - 900 / 6000);
  const lines = renderTopFrame({
    time: '12:00:00',
    intervalSeconds: 1,
    nodes: [],
    procs: [],
    processCount: 4,
    width: 120,
    height: 20,
    view: { ...V, group: true, selected: 1 },
    cgroups: totals,
  });
  assert.match(lines[1]!, /^by cgroup, sort: remote memory/);
  assert.ok(lines.includes('   PROCS    MEMORY    REMOTE LOCALITY  CGROUP'));
  assert.ok(
    lines.some((l) => /^>\s+1\s+110 B\s+60 B\s+0\.45  \/system\.slice\/redis\.service$/.test(l)),
    lines.join('\n'),
  );
});
