// Today's kernels' NUMA on Linux 6.12 (Debian 13's kernel), in one guest boot: a 3-node machine
// with a CXL-like memory-only node 2 and HMAT. Sections:
// - fallback: in a cgroup2 cpuset that allows node 0 only (mems 0, CPUs 0-1), `run --membind 1
//   --cpunodebind 1` fails as numactl's does, and with --fallback steps down to no binding with
//   one line per step, COMMAND's exit status (3) unchanged; --membind 0-1 becomes --preferred 0.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
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

/** The text after each "@@ NAME" line, by name. */
function parts(out: string): Record<string, string> {
  const r: Record<string, string> = {};
  for (const chunk of out.split(/^@@ /m).slice(1)) {
    const nl = chunk.indexOf('\n');
    r[chunk.slice(0, nl)] = chunk.slice(nl + 1);
  }
  return r;
}

describe('lab (Linux 6.12): run --fallback', { timeout: 400_000 }, () => {
  let run: SectionsRun;
  before(async () => {
    const started = Date.now();
    run = await runSections(
      THREE_NODE_CXL,
      { kernel: 'uname -r', fallback: FALLBACK },
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
});
