// numakit doctor in a real 2-node guest: with zone_reclaim_mode=1, THP "always" and
// numa_balancing=1, the spark profile reports exactly those three; with them fixed, it does not.
// Both states in one boot: the knobs are written by the guest's root before each run.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sectionOk } from './assert.js';
import { NUMAKIT } from './numakit.js';
import { runSections, type SectionsRun } from './sections.js';
import { TWO_NODE } from './topologies.js';

const set = (zr: number, thp: string, nb: number) =>
  `echo ${zr} > /proc/sys/vm/zone_reclaim_mode && echo ${thp} > /sys/kernel/mm/transparent_hugepage/enabled && echo ${nb} > /proc/sys/kernel/numa_balancing`;

const SECTIONS = {
  bad: `${set(1, 'always', 1)} && ${NUMAKIT} doctor --profile spark --json; echo "exit $?" >&2`,
  fixed: `${set(0, 'never', 0)} && ${NUMAKIT} doctor --profile spark --json; echo "exit $?" >&2`,
};

const THREE = ['zone-reclaim', 'thp/enabled', 'numa-balancing'];

interface Json {
  findings: { id: string; severity: string }[];
}

function severities(run: SectionsRun, name: string): Record<string, string> {
  const s = sectionOk(run, name);
  const j = JSON.parse(s.stdout) as Json;
  return Object.fromEntries(j.findings.filter((f) => THREE.includes(f.id)).map((f) => [f.id, f.severity]));
}

describe('doctor in a 2node guest', () => {
  let run: SectionsRun;
  before(async () => {
    run = await runSections(TWO_NODE, SECTIONS, { timeoutMs: 240_000 });
  });
  after(() => run?.cleanup());

  it('zone_reclaim_mode=1, THP always, numa_balancing=1 under spark: all three reported', () => {
    assert.deepEqual(severities(run, 'bad'), {
      'zone-reclaim': 'warning',
      'thp/enabled': 'warning',
      'numa-balancing': 'warning',
    });
  });

  it('with the three fixed: none reported, each checked and passed', () => {
    assert.deepEqual(severities(run, 'fixed'), {
      'zone-reclaim': 'pass',
      'thp/enabled': 'pass',
      'numa-balancing': 'pass',
    });
  });
});
