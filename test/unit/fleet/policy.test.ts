// The fleet report's pure parts: topology classes (memory within 2%), settings that differ
// between hosts (with or without a majority), findings x hosts, and merging a host's snapshot with its doctor report.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FleetReport, HostPart, TopologyShape } from '../../../src/model/fleet.js';
import { describeShape, topologyClasses } from '../../../src/policy/fleet/classes.js';
import { findingRows } from '../../../src/policy/fleet/findings.js';
import { numaCmdline } from '../../../src/policy/fleet/host_facts.js';
import { mergeHostParts } from '../../../src/policy/fleet/merge.js';
import { settingOutliers } from '../../../src/policy/fleet/outliers.js';
import { renderFleetHtml } from '../../../src/render/fleet_html.js';
import { renderFleetMarkdown } from '../../../src/render/fleet_markdown.js';
import { renderFleetText } from '../../../src/render/fleet_text.js';

const emptyReport = (): FleetReport => ({
  hosts: [],
  classes: [],
  findings: [],
  outliers: [],
  incomplete: [],
  problems: [],
  profiles: [],
});

const GiB = 2 ** 30;
const two = (mem0: number, mem1 = mem0, d = 21, cpus = 32): TopologyShape => ({
  nodeIds: [0, 1],
  cpus: [cpus, cpus],
  memBytes: [mem0 * GiB, mem1 * GiB],
  distances: [
    [10, d],
    [d, 10],
  ],
});

describe('topologyClasses', () => {
  const cases: [string, { host: string; shape: TopologyShape }[], string[][]][] = [
    [
      'memory 1.5% apart is one class',
      [
        { host: 'a', shape: two(96) },
        { host: 'b', shape: two(96 * 0.985) },
      ],
      [['a', 'b']],
    ],
    [
      'memory 3% apart is two',
      [
        { host: 'a', shape: two(96) },
        { host: 'b', shape: two(96 * 0.97) },
      ],
      [['a'], ['b']],
    ],
    [
      'half a node gone is its own class',
      [
        { host: 'a', shape: two(96) },
        { host: 'b', shape: two(96) },
        { host: 'c', shape: two(96, 48) },
      ],
      [['a', 'b'], ['c']],
    ],
    [
      'other distances are another class',
      [
        { host: 'a', shape: two(96) },
        { host: 'b', shape: two(96, 96, 32) },
      ],
      [['a'], ['b']],
    ],
    [
      'other CPU counts are another class',
      [
        { host: 'a', shape: two(96, 96, 21, 32) },
        { host: 'b', shape: two(96, 96, 21, 24) },
      ],
      [['a'], ['b']],
    ],
  ];
  for (const [name, hosts, want] of cases) {
    it(name, () =>
      assert.deepEqual(
        topologyClasses(hosts)
          .map((c) => c.hosts)
          .sort(),
        [...want].sort(),
      ),
    );
  }
  it('lists the largest class first', () => {
    assert.deepEqual(
      topologyClasses([
        { host: 'c', shape: two(96, 48) },
        { host: 'a', shape: two(96) },
        { host: 'b', shape: two(96) },
      ]).map((c) => c.hosts),
      [['a', 'b'], ['c']],
    );
  });
  it('labels a class by its shape', () => {
    assert.equal(describeShape(two(96)), '2 nodes x 32 CPUs, 96 GiB/node, distances 10/21');
    assert.equal(
      describeShape({
        nodeIds: [0, 1, 2],
        cpus: [2, 2, 0],
        memBytes: [GiB / 2, GiB / 2, null],
        distances: [
          [10, 21, 30],
          [21, 10, 32],
          [30, 32, 10],
        ],
      }),
      '3 nodes, CPUs 2/2/0, GiB 0.5/0.5/?, distances 10/21/30/32',
    );
  });
});

describe('settingOutliers', () => {
  it('names the one host with THP=always, and leaves out settings that agree or were not read', () => {
    const hosts = ['a', 'b', 'c', 'd'].map((host) => ({
      host,
      settings: { thp: host === 'c' ? 'always' : 'never', swappiness: '10', ksm: host === 'a' ? null : '0' },
    }));
    assert.deepEqual(settingOutliers(hosts), [
      {
        setting: 'thp',
        majority: 'never',
        majorityCount: 3,
        known: 4,
        hasMajority: true,
        commonHosts: ['a', 'b', 'd'],
        outliers: [{ host: 'c', value: 'always' }],
      },
    ]);
  });
  it('three values on three hosts: no majority, and the report says so', () => {
    const hosts = [
      { host: 'lab-a', settings: { governor: 'performance' } },
      { host: 'spark-2s', settings: { governor: 'powersave' } },
      { host: 'epyc-nps4', settings: { governor: 'schedutil' } },
    ];
    const [o] = settingOutliers(hosts);
    assert.equal(o!.hasMajority, false);
    const r = { ...emptyReport(), outliers: settingOutliers(hosts) };
    const text = renderFleetText(r);
    assert.match(text, /^settings that differ between hosts \(1\):$/m);
    assert.match(
      text,
      /^  governor: no majority: performance on lab-a; powersave on spark-2s; schedutil on epyc-nps4$/m,
    );
    for (const out of [text, renderFleetMarkdown(r), renderFleetHtml(r)])
      assert.doesNotMatch(out, /performance on 1 of 3|from the majority/i);
  });
  it('a 2-2 split has no majority either; 3 of 4 has one', () => {
    const split = ['a', 'b', 'c', 'd'].map((host, i) => ({ host, settings: { x: i < 2 ? '1' : '2' } }));
    assert.equal(settingOutliers(split)[0]!.hasMajority, false);
    const most = ['a', 'b', 'c', 'd'].map((host, i) => ({ host, settings: { x: i < 3 ? '1' : '2' } }));
    assert.equal(settingOutliers(most)[0]!.hasMajority, true);
    assert.match(renderFleetText({ ...emptyReport(), outliers: settingOutliers(most) }), /^  x: 1 on 3 of 4; 2 on d$/m);
  });
  it('sorts the rarest deviations first', () => {
    const hosts = ['a', 'b', 'c', 'd', 'e'].map((host, i) => ({
      host,
      settings: { x: i < 3 ? '1' : '2', y: i === 4 ? 'b' : 'a' },
    }));
    assert.deepEqual(
      settingOutliers(hosts).map((o) => [o.setting, o.outliers.length]),
      [
        ['y', 1],
        ['x', 2],
      ],
    );
  });
});

describe('findingRows', () => {
  it('groups hosts per finding, most serious first, passes left out', () => {
    const f = (id: string, severity: 'warning' | 'info' | 'pass' | 'critical') => ({
      id,
      rule: id.split('/')[0]!,
      severity,
      title: id,
    });
    const rows = findingRows([
      { host: 'b', findings: [f('thp', 'warning'), f('swap', 'pass')] },
      { host: 'a', findings: [f('thp', 'warning'), f('numa-off', 'critical')] },
      { host: 'c', findings: [f('irq-locality/eth0', 'info')] },
    ]);
    assert.deepEqual(
      rows.map((r) => [r.severity, r.id, r.hosts]),
      [
        ['critical', 'numa-off', ['a']],
        ['warning', 'thp', ['a', 'b']],
        ['info', 'irq-locality/eth0', ['c']],
      ],
    );
  });
});

describe('mergeHostParts', () => {
  const part = (kind: 'snapshot' | 'doctor', file: string, host: string): HostPart => ({
    kind,
    file,
    host,
    shape: kind === 'snapshot' ? two(96) : null,
    settings: kind === 'snapshot' ? { thp: 'never' } : null,
    findings: [{ id: kind, rule: kind, severity: 'warning', title: kind }],
    profile: kind === 'doctor' ? 'spark' : 'general',
    gaps: [],
  });
  it('a snapshot and a doctor report of one host are one host: doctor findings, snapshot topology', () => {
    const { records, problems } = mergeHostParts([
      part('snapshot', 'w1.tar.gz', 'w1'),
      part('doctor', 'w1.json', 'w1'),
    ]);
    assert.deepEqual(problems, []);
    assert.equal(records.length, 1);
    assert.deepEqual(
      records[0]!.findings!.map((f) => f.id),
      ['doctor'],
    );
    assert.equal(records[0]!.profile, 'spark');
    assert.deepEqual(records[0]!.incomplete, []);
    assert.ok(records[0]!.shape);
  });
  it('a second snapshot of a host is named, the first in file order is used', () => {
    const { records, problems } = mergeHostParts([
      part('snapshot', 'b/w1.tar.gz', 'w1'),
      part('snapshot', 'a/w1.tar.gz', 'w1'),
    ]);
    assert.equal(records.length, 1);
    assert.deepEqual(records[0]!.sources, ['a/w1.tar.gz']);
    assert.deepEqual(
      problems.map((p) => p.message),
      ['b/w1.tar.gz: a second snapshot of host w1 (a/w1.tar.gz is used)'],
    );
  });
  it('a doctor report alone is incomplete: no topology, no settings', () => {
    const { records } = mergeHostParts([part('doctor', 'w2.json', 'w2')]);
    assert.deepEqual(records[0]!.incomplete, ['no snapshot: topology and settings unknown']);
  });
});

it('numaCmdline keeps only the arguments that decide NUMA behaviour', () => {
  assert.equal(
    numaCmdline(
      'BOOT_IMAGE=/vmlinuz root=UUID=x ro quiet numa_balancing=disable transparent_hugepage=never hugepages=512',
    ),
    'numa_balancing=disable transparent_hugepage=never hugepages=512',
  );
  assert.equal(numaCmdline('ro quiet'), '(none)');
});
