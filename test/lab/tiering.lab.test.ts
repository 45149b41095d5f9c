// Memory tiering and cgroups on Linux 6.12 (Debian 13's kernel), one guest boot per topology:
// the 3-node machine with a memory-only node 2, without HMAT (node 2 joins DRAM's memory_tier4)
// and with it (node 2 in memory_tier18). Sections:
// - doctor: `doctor --profile memory-tiering --json`: without HMAT the memory-tiers rule warns
//   that node 2 shares DRAM's tier and nothing advises demotion or numa_balancing=2; with HMAT
//   node 2 is a slower tier and demotion (off by default), numa_balancing (1) and the promotion
//   rate limit (65536 MB/s) are judged against it;
// - topo: the tiers as the kernel reports them;
// - counters: `stat --watch --json` carries each node's pgpromote_success and pgdemote;
// - cgroups (no-HMAT boot): two cgroup2 cgroups with the same CPUs (node 0's) and memory placed
//   differently (cpuset.mems 0 and 1), each holding a 64 MiB process: `stat --cgroup` ranks the
//   remote one first with its memory on node 1, and shows /far in full.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sectionOk } from './assert.js';
import { NUMAKIT } from './numakit.js';
import { runSections, type SectionsRun } from './sections.js';
import { THREE_NODE_CXL } from './topologies.js';

const DOCTOR = `${NUMAKIT} doctor --profile memory-tiering --json; true`;
const TOPO = `${NUMAKIT} topo | sed -n '/^memory tiers/,/^$/p'; grep . /sys/devices/virtual/memory_tiering/memory_tier*/nodelist`;
const COUNTERS = `${NUMAKIT} stat --watch 1 --count 1 --json`;

const CG = '/sys/fs/cgroup';
/** Two cgroups on node 0's CPUs, memory on node 0 (/near) and node 1 (/far), 64 MiB each. */
const CGROUPS = [
  `mountpoint -q ${CG} || mount -t cgroup2 none ${CG}`,
  `echo '+cpuset +memory' >${CG}/cgroup.subtree_control`,
  ...[
    ['near', 0],
    ['far', 1],
  ].map(
    ([name, mems]) =>
      `mkdir -p ${CG}/${name} && echo 0-1 >${CG}/${name}/cpuset.cpus && echo ${mems} >${CG}/${name}/cpuset.mems && ` +
      `(echo $BASHPID >${CG}/${name}/cgroup.procs; exec node -e 'const b = Buffer.alloc(64 << 20, 1); require("fs").writeFileSync("/tmp/ready-${name}", ""); setInterval(() => b[0]++, 200)') &`,
  ),
  // Each process says when its 64 MiB are touched (node starts slowly under TCG).
  'for i in $(seq 120); do [ -e /tmp/ready-near ] && [ -e /tmp/ready-far ] && break; sleep 0.5; done',
  `echo "@@ all"; ${NUMAKIT} stat --cgroup --json --window 1`,
  `echo "@@ far"; ${NUMAKIT} stat --cgroup /far --window 1`,
  'kill $(jobs -p)',
].join('\n');

/** The text after each "@@ NAME" line, by name. */
function parts(out: string): Record<string, string> {
  const r: Record<string, string> = {};
  for (const chunk of out.split(/^@@ /m).slice(1)) {
    const nl = chunk.indexOf('\n');
    r[chunk.slice(0, nl)] = chunk.slice(nl + 1);
  }
  return r;
}

interface Finding {
  readonly id: string;
  readonly severity: string;
  readonly title: string;
  readonly why: string;
  readonly changes: { target: string; value: string }[];
}
const findings = (run: SectionsRun) =>
  (JSON.parse(sectionOk(run, 'doctor').stdout) as { findings: Finding[] }).findings;
const severity = (fs: Finding[], id: string) => fs.find((f) => f.id === id)?.severity;

const MiB = 2 ** 20;
const boots: [string, boolean][] = [
  ['without HMAT', false],
  ['with HMAT', true],
];

for (const [label, hmat] of boots)
  describe(`lab (Linux 6.12): memory tiering ${label}`, { timeout: 500_000 }, () => {
    let run: SectionsRun;
    before(async () => {
      const started = Date.now();
      const sections: Record<string, string> = { kernel: 'uname -r', doctor: DOCTOR, topo: TOPO, counters: COUNTERS };
      if (!hmat) sections['cgroups'] = CGROUPS;
      run = await runSections({ ...THREE_NODE_CXL, name: hmat ? '3node-cxl' : '3node-cxl-nohmat', hmat }, sections, {
        kernel: '6.12',
        timeoutMs: 450_000,
      });
      console.log(`tiering lab guest (${label}): ${((Date.now() - started) / 1000).toFixed(1)} s`);
    });
    after(() => run?.cleanup());

    it("boots Debian 13's 6.12 kernel", () => {
      assert.match(sectionOk(run, 'kernel').stdout, /^6\.12\./);
    });

    it(`the kernel's tiers: node 2 in ${hmat ? 'a tier below DRAM' : "DRAM's tier"}, and topo says so`, () => {
      const out = sectionOk(run, 'topo').stdout;
      if (hmat) {
        assert.match(out, /^ {2}tier 4: nodes 0-1 \(DRAM's tier\)$/m);
        assert.match(out, /^ {2}tier \d+: node 2 \(slower than DRAM; memory-only: 2\)$/m);
      } else {
        assert.match(out, /^ {2}tier 4: nodes 0-2 \(DRAM's tier; memory-only: 2\)$/m);
        assert.match(out, /^ {2}! memory-only node 2 shares DRAM's tier 4/m);
      }
    });

    it('doctor --profile memory-tiering judges the tiers the kernel made', () => {
      const fs = findings(run);
      if (!hmat) {
        assert.equal(severity(fs, 'memory-tiers/node2'), 'warning');
        assert.match(fs.find((f) => f.id === 'memory-tiers/node2')!.why, /no HMAT or CDAT performance data/);
        assert.equal(severity(fs, 'demotion'), 'pass', 'demotion is not advised');
        assert.equal(severity(fs, 'numa-balancing'), 'pass', 'numa_balancing=2 is not advised');
        assert.ok(!fs.some((f) => f.changes?.some((c) => c.target === 'kernel.numa_balancing')));
      } else {
        assert.equal(severity(fs, 'memory-tiers/node2'), 'pass');
        assert.equal(severity(fs, 'demotion'), 'warning');
        assert.equal(severity(fs, 'numa-balancing'), 'warning');
        assert.match(fs.find((f) => f.id === 'numa-balancing')!.title, /from the slower tier \(node 2\)/);
        const rate = fs.find((f) => f.id === 'promote-rate-limit')!;
        assert.equal(rate.severity, 'warning');
        assert.equal(rate.changes[0]!.target, 'kernel.numa_balancing_promote_rate_limit_MBps');
        assert.ok(Number(rate.changes[0]!.value) < 65536);
      }
    });

    it("stat --watch reads each node's promotion and demotion counters", () => {
      const line = JSON.parse(sectionOk(run, 'counters').stdout.trim()) as {
        nodes: Record<string, Record<string, number | null>>;
      };
      for (const n of ['0', '1', '2']) {
        assert.equal(typeof line.nodes[n]!['pgpromote_success'], 'number', `node ${n} pgpromote_success`);
        assert.equal(typeof line.nodes[n]!['pgdemote'], 'number', `node ${n} pgdemote`);
      }
    });

    if (!hmat)
      it('stat --cgroup: two cgroups placed differently, the remote one first', () => {
        const p = parts(sectionOk(run, 'cgroups').stdout);
        const j = JSON.parse(p['all']!) as {
          cgroups: {
            path: string;
            version: number;
            remoteBytes: number;
            mems: number[];
            numaStat: Record<string, { anon: number }>;
          }[];
        };
        const far = j.cgroups.find((c) => c.path === '/far')!;
        const near = j.cgroups.find((c) => c.path === '/near')!;
        assert.ok(far && near, JSON.stringify(j.cgroups.map((c) => c.path)));
        assert.equal(far.version, 2);
        assert.deepEqual([near.mems, far.mems], [[0], [1]]);
        assert.ok(far.numaStat['1']!.anon >= 60 * MiB, `far on node 1: ${JSON.stringify(far.numaStat)}`);
        assert.ok(near.numaStat['0']!.anon >= 60 * MiB, `near on node 0: ${JSON.stringify(near.numaStat)}`);
        // The processes' own file pages (node's binary in the page cache) may sit on either node.
        assert.ok(far.remoteBytes >= near.remoteBytes + 48 * MiB, `${far.remoteBytes} ${near.remoteBytes}`);
        assert.ok(
          j.cgroups.findIndex((c) => c.path === '/far') < j.cgroups.findIndex((c) => c.path === '/near'),
          'ranked by remote memory',
        );
        assert.match(p['far']!, /^cgroup \/far \(v2\)\n {2}CPUs allowed: 0-1; memory nodes allowed: 1\n/);
        assert.match(p['far']!, /node 1: \d+(\.\d+)?MiB \(anon/);
        console.log(p['far']);
      });
  });
