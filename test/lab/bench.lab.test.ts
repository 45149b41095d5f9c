// numakit bench in guests with real NUMA nodes (emulated: the figures are no speed claims).
// 2 nodes: every matrix cell verified on its node; remote binding shows other_node deltas that
// local binding does not; sysbench and a plain command as workloads; SIGINT in the middle of a
// tuned: run and of an agent run puts back every setting and leaves no process behind.
// 4 nodes (1 CPU each): the 4 x 4 matrix, every cell verified.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { seededRandom, shuffled } from '../../src/bench/stats.js';
import type { AbResult, MemResult } from '../../src/model/bench.js';
import { sectionOk } from './assert.js';
import { NUMAKIT } from './numakit.js';
import { runSections, type SectionsRun } from './sections.js';
import { FOUR_NODE_ASYM, TWO_NODE } from './topologies.js';

// Two guests share the host (below): room for both on a loaded one.
const SLOW_GUEST_MS = 600_000;
const MEM = `${NUMAKIT} bench mem --size 8M --latency-size 8M --seconds 0 --json`;

/** A seed whose first round starts with `first` of the variants [t, a]. */
function seedStartingWith(first: 't' | 'a'): number {
  for (let seed = 1; ; seed++) if (shuffled(['t', 'a'], seededRandom(seed))[0] === first) return seed;
}

/** bench ab with a tuned: and an agent variant, interrupted once its first workload runs. */
function interrupted(first: 't' | 'a'): string {
  const knobs =
    'echo "$(cat /proc/sys/kernel/numa_balancing) $(cat /proc/sys/vm/swappiness) $(cat /proc/sys/vm/zone_reclaim_mode)"';
  return `state=$(mktemp -d); rm -f /tmp/started; before=$(${knobs})
${NUMAKIT} bench ab --runs 3 --settle 0 --seed ${seedStartingWith(first)} --state-dir "$state" --numa-balancing off \\
  --variant t=tuned:database --variant a=agent -- sh -c 'touch /tmp/started; exec sleep 60' >/tmp/ab.out 2>/tmp/ab.err &
pid=$!
for i in $(seq 1 400); do [ -e /tmp/started ] && break; sleep 0.3; done
sleep 1; during=$(${knobs}); kill -INT $pid; wait $pid; rc=$?
sleep 1; after=$(${knobs})
left=$(ps -eo args | grep -cE '^(sleep 60|.*[b]in.js agent)')
cat /tmp/ab.err >&2
echo "{\\"rc\\":$rc,\\"before\\":\\"$before\\",\\"during\\":\\"$during\\",\\"after\\":\\"$after\\",\\"left\\":$left}"
${NUMAKIT} journal --state-dir "$state" --json | tr -d '\\n'; echo`;
}

interface Interrupted {
  rc: number;
  before: string;
  during: string;
  after: string;
  left: number;
}

/**
 * The 4-node guest boots with the 2-node one, from the first hook (each describe awaits its own):
 * most of its run is one process on one vCPU, which the 2-core host has room for. Its figures
 * are printed, not judged; what is asserted is placement and counts, not speed.
 */
let fourNodeRun: Promise<SectionsRun> | undefined;
function startFourNode(): Promise<SectionsRun> {
  if (fourNodeRun === undefined) {
    fourNodeRun = runSections(FOUR_NODE_ASYM, { mem: MEM }, { timeoutMs: SLOW_GUEST_MS });
    fourNodeRun.catch(() => undefined);
  }
  return fourNodeRun;
}

describe('numakit bench on 2 nodes', () => {
  let run: SectionsRun;
  before(async () => {
    startFourNode();
    run = await runSections(
      TWO_NODE,
      {
        mem: `${MEM} --loaded`,
        ab_dd: `${NUMAKIT} bench ab --runs 3 --settle 0 --variant local='--cpunodebind=0 --membind=0' --variant remote='--cpunodebind=0 --membind=1' --json -- dd if=/dev/zero of=/dev/null bs=32M count=4`,
        ab_sysbench: `${NUMAKIT} bench ab --runs 3 --settle 0 --variant default= --variant interleave=--interleave=all --metric 'transferred \\(([0-9.]+) MiB/sec\\)' --report "$LAB_OUT/report" --json -- sysbench memory --memory-total-size=128M run`,
        sigint_tuned: interrupted('t'),
        sigint_agent: interrupted('a'),
      },
      { timeoutMs: SLOW_GUEST_MS },
    );
  });
  after(() => run?.cleanup());

  it("mem: a 2 x 2 matrix, every cell's buffer verified on its node, loaded latency with one streamer", () => {
    const r = JSON.parse(sectionOk(run, 'mem').stdout) as MemResult;
    assert.deepEqual(
      [r.cpuNodes, r.memNodes],
      [
        [0, 1],
        [0, 1],
      ],
    );
    assert.equal(r.bandwidth.length, 4);
    for (const c of [...r.bandwidth, ...r.latency, ...r.loadedLatency]) {
      assert.equal(c.placement.share, 1, `${c.cpuNode}->${c.memNode}: ${JSON.stringify(c.placement.byNode)}`);
      assert.deepEqual(Object.keys(c.placement.byNode), [String(c.memNode)]);
      assert.equal(c.placement.verified, true);
    }
    for (const c of r.bandwidth) assert.ok(c.kernels.triad!.gbps.best > 0 && c.cpus.length === 2);
    assert.equal(r.loadedLatency.length, 4);
    assert.ok(r.loadedLatency.every((c) => c.loaders === 1));
  });

  it('ab: remote binding shows other_node on node 1 that local binding does not', () => {
    const r = JSON.parse(sectionOk(run, 'ab_dd').stdout) as AbResult;
    // numastat counts an allocation event, so a transparent huge page counts once, not 512 times.
    const other = (v: string) => r.runs.filter((x) => x.variant === v).map((x) => x.numastat['1']!['other_node']!);
    const [remote, local] = [other('remote'), other('local')];
    const seen = `node 1 other_node per run: remote +${remote.join(', +')}; local +${local.join(', +')}`;
    assert.ok(
      remote.every((x) => x >= 200),
      seen,
    );
    assert.ok(Math.max(...local) * 5 < Math.min(...remote), seen);
    assert.ok(r.runs.every((x) => x.ok && x.userS + x.systemS > 0));
  });

  it('ab: sysbench as the workload, its MiB/sec as the metric; the report is written', () => {
    const r = JSON.parse(sectionOk(run, 'ab_sysbench').stdout) as AbResult;
    assert.ok(r.runs.length === 6 && r.runs.every((x) => x.ok && x.metric !== null && x.metric > 0));
    assert.ok(r.summary[1]!.ratio !== null);
    assert.match(sectionOk(run, 'ab_sysbench').stderr, /wrote .*REPORT\.md and .*report\.html/);
  });

  for (const first of ['tuned', 'agent'] as const) {
    it(`SIGINT during a${first === 'agent' ? 'n' : ''} ${first} run: exit 130, every setting back, nothing left running`, () => {
      const s = sectionOk(run, `sigint_${first}`);
      const lines = s.stdout.trim().split('\n');
      const r = JSON.parse(lines.at(-2)!) as Interrupted;
      const journal = JSON.parse(lines.at(-1)!) as { changeSets: { status: string; source: string }[] };
      assert.equal(r.rc, 130, s.stderr);
      assert.equal(
        r.after,
        r.before,
        `numa_balancing swappiness zone_reclaim_mode: before ${r.before}, during ${r.during}, after ${r.after}`,
      );
      // bench's --numa-balancing off holds AutoNUMA at 0 in both variants (the database profile
      // wants it off too when bound); tuned:database shows as its swappiness of 10.
      const [balancing, swappiness] = r.during.split(' ');
      assert.equal(balancing, '0', `during the run: ${r.during}`);
      if (first === 'tuned') {
        assert.equal(swappiness, '10', `during the run: ${r.during}`);
        assert.notEqual(r.before.split(' ')[1], '10', `the guest's swappiness was already 10: ${r.before}`);
      }
      assert.equal(r.left, 0, 'no workload or agent process left');
      assert.match(s.stderr, /bench ab: restored kernel\.numa_balancing/);
      assert.match(s.stderr, first === 'tuned' ? /restored profile database/ : /restored numakit agent/);
      assert.ok(
        journal.changeSets.length >= 2 && journal.changeSets.every((c) => c.status === 'rolled-back'),
        JSON.stringify(journal),
      );
    });
  }
});

describe('numakit bench mem on 4 nodes', () => {
  let run: SectionsRun;
  before(async () => {
    run = await startFourNode();
  });
  after(() => run?.cleanup());

  it('a 4 x 4 matrix, every cell verified on its node', () => {
    const r = JSON.parse(sectionOk(run, 'mem').stdout) as MemResult;
    assert.deepEqual(
      [r.cpuNodes, r.memNodes],
      [
        [0, 1, 2, 3],
        [0, 1, 2, 3],
      ],
    );
    assert.equal(r.bandwidth.length, 16);
    assert.equal(r.latency.length, 16);
    for (const c of [...r.bandwidth, ...r.latency])
      assert.ok(c.placement.verified && c.placement.onNode === c.placement.pages, `${c.cpuNode}->${c.memNode}`);
  });
});
