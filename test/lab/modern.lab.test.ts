// Today's kernels' NUMA on Linux 6.12 (Debian 13's kernel), in one guest boot: a 3-node machine
// with a CXL-like memory-only node 2 and HMAT. Sections:
// - fallback: in a cgroup2 cpuset that allows node 0 only (mems 0, CPUs 0-1), `run --membind 1
//   --cpunodebind 1` fails as numactl's does, and with --fallback steps down to no binding with
//   one line per step, COMMAND's exit status (3) unchanged; --membind 0-1 becomes --preferred 0.
// - weights: apply --interleave-weights hmat --persist /etc --yes sets 3 3 1 (HMAT 20000, 20000,
//   6667 MB/s) with tuned running; topo and run -w all --show print numactl's interleaveweights
//   line; a 96 MiB buffer touched under run -w all lies on the nodes as the weights say (its
//   numa_maps N0/N1/N2 within a few % of 3/7, 3/7, 1/7); the weights reset to 1 come back when tuned
//   loads the profile apply wrote (tuned is the program that reads --persist); rollback restores 1 1 1.
// - hwloc: in the same cpuset, `numakit topo --xml` equals the guest's own lstopo --of xml.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { canonicalHwlocXml, firstDifference } from '../helpers/hwloc_canon.js';
import { sectionOk } from './assert.js';
import { NUMAKIT } from './numakit.js';
import { runSections, type SectionsRun } from './sections.js';
import { THREE_NODE_CXL } from './topologies.js';

const BOX = '/sys/fs/cgroup/box';
/** A cgroup2 cpuset that forbids node 1 (its memory and its CPUs 2-3); the section moves itself in. */
const INTO_BOX = [
  'mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup',
  'echo +cpuset >/sys/fs/cgroup/cgroup.subtree_control',
  `mkdir -p ${BOX} && echo 0 >${BOX}/cpuset.mems && echo 0-1 >${BOX}/cpuset.cpus`,
  `echo $BASHPID >${BOX}/cgroup.procs`,
].join('\n');
const STATUS = `grep -E '^(Cpus|Mems)_allowed_list' /proc/self/status | tr -d '\\t'`;

const FALLBACK = [
  INTO_BOX,
  `echo "@@ plain"; ${NUMAKIT} run --membind 1 --cpunodebind 1 -- sh -c 'exit 3' 2>&1; echo "rc=$?"`,
  `echo "@@ fallback"; ${NUMAKIT} run --fallback --membind 1 --cpunodebind 1 -- sh -c "${STATUS}; exit 3" 2>&1; echo "rc=$?"`,
  `echo "@@ preferred"; ${NUMAKIT} run --fallback --membind 0-1 --show 2>&1; echo "rc=$?"`,
].join('\n');

const WI = '/sys/kernel/mm/mempolicy/weighted_interleave';
/** The largest anonymous mapping of a node process that fills a 96 MiB buffer: its numa_maps line. */
const TOUCH = `node -e 'const b = Buffer.alloc(96 << 20, 1); const fs = require("fs"); let best = "", most = 0;
for (const l of fs.readFileSync("/proc/self/numa_maps", "utf8").split("\\n")) { const a = /anon=(\\d+)/.exec(l); if (a && +a[1] > most) [best, most] = [l, +a[1]]; }
console.log(best + " " + b[0]);'`;
const WEIGHTS = [
  'set -e',
  'mkdir -p /run/dbus; dbus-daemon --system --fork',
  'tuned --daemon',
  'for i in $(seq 1 200); do tuned-adm active >/dev/null 2>&1 && break; sleep 0.3; done',
  'tuned-adm profile balanced',
  `echo "@@ apply"; ${NUMAKIT} apply --interleave-weights hmat --persist /etc --yes --state-dir /tmp/st`,
  `echo "@@ sysfs"; cat ${WI}/node0 ${WI}/node1 ${WI}/node2 | tr '\n' ' '; echo`,
  `echo "@@ topo"; ${NUMAKIT} topo | grep -A1 '^weighted interleave'`,
  `echo "@@ show"; ${NUMAKIT} run -w all --show`,
  `echo "@@ pages"; ${NUMAKIT} run -w all -- ${TOUCH}`,
  `echo "@@ tuned"; for n in 0 1 2; do echo 1 > ${WI}/node$n; done; cat /etc/tuned/active_profile`,
  'tuned-adm profile numakit-interleave-weights',
  `cat ${WI}/node0 ${WI}/node1 ${WI}/node2 | tr '\n' ' '; echo`,
  `echo "@@ rollback"; ${NUMAKIT} rollback --state-dir /tmp/st >/dev/null`,
  `cat ${WI}/node0 ${WI}/node1 ${WI}/node2 | tr '\n' ' '; echo; cat /etc/tuned/active_profile`,
].join('\n');

/** hwloc's own export and numakit's, in the same cgroup2 cpuset (node 1 and CPUs 2-3 not allowed). */
const HWLOC = [
  INTO_BOX,
  'echo "@@ hwloc"; HWLOC_COMPONENTS=-x86 lstopo-no-graphics --of xml',
  `echo "@@ numakit"; ${NUMAKIT} topo --xml`,
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

describe('lab (Linux 6.12): run --fallback, weighted interleave', { timeout: 400_000 }, () => {
  let run: SectionsRun;
  before(async () => {
    const started = Date.now();
    run = await runSections(
      THREE_NODE_CXL,
      { kernel: 'uname -r', fallback: FALLBACK, weights: WEIGHTS, hwloc: HWLOC },
      {
        kernel: '6.12',
        timeoutMs: 360_000,
      },
    );
    console.log(`modern lab guest: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  });
  after(() => run?.cleanup());

  it("boots Debian 13's 6.12 kernel", () => {
    assert.match(sectionOk(run, 'kernel').stdout, /^6\.12\./);
  });

  it("topo --xml equals the guest's own lstopo --of xml inside a cgroup2 cpuset (canonical form, -x86)", () => {
    const p = parts(sectionOk(run, 'hwloc').stdout);
    const theirs = canonicalHwlocXml(p['hwloc'] ?? '');
    assert.match(theirs.join('\n'), /Machine allowed_cpuset="0x00000003"/, 'hwloc sees the cpuset');
    assert.equal(firstDifference(theirs, canonicalHwlocXml(p['numakit'] ?? '')), null);
  });

  it("--fallback steps down where the cpuset forbids node 1, a line per step; the exit status is the command's", () => {
    const p = parts(sectionOk(run, 'fallback').stdout);
    assert.match(p['plain'] ?? '', /^numakit: run: .*node 1 is not allowed here \(allowed: 0\)\nrc=1\n$/);
    assert.equal(
      p['fallback'],
      [
        "numakit: run: --fallback: --membind 1 -> CPU binding only: node 1 is not in cgroup /box's cpuset (0, /sys/fs/cgroup/box/cpuset.mems.effective)",
        "numakit: run: --fallback: --cpunodebind 1 -> no CPU binding: CPUs 2-3 are not in cgroup /box's cpuset (0-1, /sys/fs/cgroup/box/cpuset.cpus.effective)",
        'Cpus_allowed_list:0-1',
        'Mems_allowed_list:0',
        'rc=3',
        '',
      ].join('\n'),
    );
    const pref = p['preferred'] ?? '';
    assert.match(pref, /--membind 0-1 -> --preferred 0: node 1 is not in cgroup \/box's cpuset/);
    assert.match(pref, /^policy: preferred\npreferred node: 0\n/m);
    assert.match(pref, /rc=0\n$/);
  });

  it('weighted interleave: weights from HMAT, shown as numactl shows them, pages split as they say, kept by tuned', () => {
    const p = parts(sectionOk(run, 'weights').stdout);
    assert.equal(p['sysfs'], '3 3 1 \n');
    assert.equal(p['topo'], 'weighted interleave, nodes 0-2:\ninterleaveweights: 3 3 1 \n');
    assert.match(
      p['show'] ?? '',
      /^policy: weighted-interleave\n.*\ninterleavemask: 0 1 2 \ninterleaveweights: 3 3 1 \ninterleavenode: \d\n/s,
    );
    const line = p['pages'] ?? '';
    assert.match(line, /weighted interleave:0-2/);
    const pages = [0, 1, 2].map((n) => Number(new RegExp(`\\bN${n}=(\\d+)`).exec(line)?.[1] ?? 0));
    const total = pages.reduce((a, b) => a + b, 0);
    assert.ok(total >= 24_000, line); // 96 MiB of 4 KiB pages
    const shares = pages.map((n) => n / total);
    console.log(
      `weighted interleave placement: pages ${pages.join('/')} of ${total}, shares ${shares.map((x) => x.toFixed(4)).join('/')} vs weights 3/3/1 (${[3, 3, 1].map((w) => (w / 7).toFixed(4)).join('/')})`,
    );
    [3 / 7, 3 / 7, 1 / 7].forEach((want, n) =>
      assert.ok(Math.abs(shares[n]! - want) < 0.04, `node ${n}: ${shares[n]} vs ${want}: ${line}`),
    );
    assert.equal(
      p['tuned'],
      'numakit-interleave-weights\n3 3 1 \n',
      'tuned writes the weights of the profile apply --persist wrote',
    );
    assert.equal(p['rollback'], '1 1 1 \nbalanced\n');
  });
});
