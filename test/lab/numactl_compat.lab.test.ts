// numactl's semantics and remaining options in `numakit run`, and `numakit migrate` against
// migratepages, side by side with numactl 2.0.16 in one two-node guest (node 0: CPUs 0-1,
// node 1: CPUs 2-3): the CPU bounds after a taskset and inside a cgroup cpuset, --shm/--file
// policies (the same --dump and --dump-nodes lines for the same arguments, and each tool reading
// the other's segment), and the same process moved by migratepages and by both of migrate's movers.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sectionOk } from './assert.js';
import { shellQuote } from './guest.js';
import { NUMAKIT } from './numakit.js';
import { runSections, type SectionsRun } from './sections.js';
import { TWO_NODE } from './topologies.js';

const NEED_NUMACTL =
  'command -v numactl >/dev/null && command -v migratepages >/dev/null || { echo "the lab guest needs numactl (apt-get install numactl)" >&2; exit 99; }';
const CPUS = 'grep Cpus_allowed_list /proc/self/status';
// A process's anonymous MiB per node from its numa_maps: "N0=12 N1=52" (file pages left out: the
// paced mover moves anonymous pages only).
const NODES = `nodes() { awk '/ anon=/ && !/ file=/ { ps = 4; for (i = 1; i <= NF; i++) if ($i ~ /^kernelpagesize_kB=/) { split($i, a, "="); ps = a[2] }
  for (i = 1; i <= NF; i++) if ($i ~ /^N[0-9]+=/) { split(substr($i, 2), a, "="); s[a[1]] += a[2] * ps } }
  END { printf "N0=%d N1=%d\\n", s[0] / 1024, s[1] / 1024 }' /proc/$1/numa_maps; }`;
const WORKLOAD = `node -e ${shellQuote('globalThis.b = Buffer.alloc(24 << 20, 1); console.log("ready"); setInterval(() => {}, 1000)')}`;
const START = `${NODES}
numactl --cpunodebind=1 --membind=1 ${WORKLOAD} > /tmp/w.out & W=$!
for i in $(seq 300); do grep -q ready /tmp/w.out && break; sleep 0.2; done`;

// About thirty Node start-ups and two workloads under TCG: 300 s on this 2-core host at load 25,
// more than 360 s at load 44 (the migrate section did not finish): room for a busy host.
const SLOW_GUEST_MS = 600_000;

describe('numactl compatibility on 2 nodes', () => {
  let run: SectionsRun;
  before(async () => {
    run = await runSections(
      TWO_NODE,
      {
        taskset: `${NEED_NUMACTL}
taskset -c 0 numactl -N 1 ${CPUS}; taskset -c 0 ${NUMAKIT} run -N 1 ${CPUS}
taskset -c 0 numactl -C 2 true >/dev/null 2>&1; echo "numactl -C 2: $?"; taskset -c 0 ${NUMAKIT} run -C 2 true 2>/dev/null; echo "numakit -C 2: $?"
taskset -c 0 numactl -a -C 2 ${CPUS}; taskset -c 0 ${NUMAKIT} run -a -C 2 ${CPUS}`,
        cpuset: `${NEED_NUMACTL}
mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup
echo +cpuset > /sys/fs/cgroup/cgroup.subtree_control && mkdir /sys/fs/cgroup/lab && echo 0-1 > /sys/fs/cgroup/lab/cpuset.cpus && echo 0-1 > /sys/fs/cgroup/lab/cpuset.mems || exit 98
echo $BASHPID > /sys/fs/cgroup/lab/cgroup.procs
numactl -N 1 true 2>/dev/null; echo "numactl -N 1: $?"
${NUMAKIT} run -N 1 true; echo "numakit -N 1: $?"
${NUMAKIT} run -a -N 1 true 2>/dev/null; echo "numakit -a -N 1: $?"
numactl -N 0-1 ${CPUS}; ${NUMAKIT} run -N 0-1 ${CPUS}`,
        file_numactl: `${NEED_NUMACTL}
numactl --length 1m --file /dev/shm/a --membind 1 --touch --dump --dump-nodes
numactl --length 64k --file /dev/shm/b --interleave 0,1 --touch --dump-nodes | awk '{ n[$2]++ } END { print "interleaved: " n[0] " on 0, " n[1] " on 1" }'
numactl --length 64k --file /dev/shm/b --dump-nodes --dump > /tmp/b.numactl`,
        file_numakit: `${NUMAKIT} run --length 1m --file /dev/shm/x --membind 1 --touch --dump --dump-nodes
${NUMAKIT} run --length 64k --file /dev/shm/y --interleave 0,1 --touch --dump-nodes | awk '{ n[$2]++ } END { print "interleaved: " n[0] " on 0, " n[1] " on 1" }'
${NUMAKIT} run --length 64k --file /dev/shm/b --dump-nodes --dump | cmp - /tmp/b.numactl && echo "numactl's file: the same lines"`,
        shm: `${NEED_NUMACTL}
numactl --length 2m --shm /tmp/k1 --interleave=all --dump 2>/dev/null; ${NUMAKIT} run --length 2m --shm /tmp/k2 --interleave=all --dump 2>/dev/null
numactl --shm /tmp/k2 --dump-nodes --dump > /tmp/k2.numactl; ${NUMAKIT} run --shm /tmp/k2 --dump-nodes --dump | cmp - /tmp/k2.numactl && echo "numakit's segment: the same lines"
numactl --shm /tmp/k1 --touch --dump-nodes > /tmp/k1.numactl; ${NUMAKIT} run --shm /tmp/k1 --dump-nodes | cmp - /tmp/k1.numactl && echo "numactl's segment: the same lines"
awk '{ n[$2]++ } END { print "interleaved: " n[0] " on 0, " n[1] " on 1" }' /tmp/k1.numactl
${NUMAKIT} run --length 1m --shmid 7 --shm /tmp/k3 -m 1 --touch 2>/dev/null; numactl --shmid 7 --shm /tmp/k3 --dump-nodes
${NUMAKIT} run --membind=ip:127.0.0.1 true; echo "ip: $?"`,
        migrate: `${NEED_NUMACTL}
${START}
echo "start $(nodes $W)"
${NUMAKIT} run -m 0 true # warm the 9p cache for the timed runs
${NUMAKIT} migrate $W 1 0 > /tmp/m1.txt; echo "numakit rc=$? $(nodes $W)"; cat /tmp/m1.txt >&2
migratepages $W 0 1; echo "migratepages rc=$? $(nodes $W)"
${NUMAKIT} migrate $W 1 0 --rate 100 --threads --json > /tmp/m2.json; echo "paced rc=$? $(nodes $W)"
cp /tmp/m2.json "$LAB_OUT/paced.json"
${NUMAKIT} migrate $W 0 1 --rate 2 --json > "$LAB_OUT/stopped.json" & M=$!
for i in $(seq 300); do n1=$(nodes $W | sed 's/.*N1=//'); [ "$n1" -ge 2 ] && break; sleep 0.1; done
kill -INT $M; wait $M; echo "stopped rc=$? $(nodes $W)"
kill $W`,
      },
      { timeoutMs: SLOW_GUEST_MS },
    );
  });
  after(() => run?.cleanup());

  it("after taskset, -N binds to the node's CPUs as numactl does; -C stays bounded unless --all", () => {
    assert.equal(
      sectionOk(run, 'taskset').stdout,
      'Cpus_allowed_list:\t2-3\nCpus_allowed_list:\t2-3\nnumactl -C 2: 1\nnumakit -C 2: 1\nCpus_allowed_list:\t2\nCpus_allowed_list:\t2\n',
    );
  });

  it('inside a cgroup cpuset, a node outside it is refused by both (numakit naming the cpuset), --all does not lift it', () => {
    const s = sectionOk(run, 'cpuset');
    assert.equal(
      s.stdout,
      'numactl -N 1: 1\nnumakit -N 1: 1\nnumakit -a -N 1: 1\nCpus_allowed_list:\t0-1\nCpus_allowed_list:\t0-1\n',
    );
    assert.equal(
      s.stderr,
      "numakit: run: --cpunodebind 1: none of node 1's CPUs (2-3) is in cgroup /lab's cpuset (0-1, /sys/fs/cgroup/lab/cpuset.cpus.effective)\n",
    );
  });

  it('--file: the same --dump and --dump-nodes lines as numactl for the same arguments, pages where the policy says', () => {
    const ours = sectionOk(run, 'file_numakit').stdout;
    const theirs = sectionOk(run, 'file_numactl').stdout;
    // Interleaving on a file starts at a node set by its inode (mm/shmem.c), so files differ in
    // which node comes first: the counts are compared, and the lines of the same file.
    assert.equal(ours.split('\n').slice(0, 3).join('\n'), theirs.split('\n').slice(0, 3).join('\n'));
    assert.equal(
      ours,
      '0000000000000000-0000000000100000: bind : 1 \n0000000000000000-0000000000100000: 1\ninterleaved: 8 on 0, 8 on 1\n' +
        "numactl's file: the same lines\n",
    );
  });

  it('--shm: the same lines as numactl, and each tool reads what the other set on its segment', () => {
    const dump = '0000000000000000-0000000000200000: interleave : 0 1 ';
    assert.equal(
      sectionOk(run, 'shm').stdout,
      `${dump}\n${dump}\nnumakit's segment: the same lines\nnumactl's segment: the same lines\n` +
        'interleaved: 256 on 0, 256 on 1\n0000000000000000-0000000000100000: 1\nip: 1\n',
    );
    assert.match(
      sectionOk(run, 'shm').stderr,
      /ip:127\.0\.0\.1: routed through lo, which is not attached to any NUMA node/,
    );
  });

  it('migrate moves the process as migratepages does; paced, it stops on SIGINT saying what moved', () => {
    const s = sectionOk(run, 'migrate');
    const at = (what: string) => {
      const m = new RegExp(`^${what} rc=(\\d+) N0=(\\d+) N1=(\\d+)$`, 'm').exec(s.stdout);
      assert.ok(m, `${what}: ${s.stdout}\n${s.stderr}`);
      return { rc: Number(m[1]), n0: Number(m[2]), n1: Number(m[3]) };
    };
    const ours = at('numakit');
    const theirs = at('migratepages');
    const paced = at('paced');
    assert.equal(ours.rc, 0);
    assert.equal(theirs.rc, 0);
    assert.equal(paced.rc, 0);
    assert.ok(ours.n0 >= 24 && ours.n1 <= 2, `numakit migrate 1 0: ${JSON.stringify(ours)}`);
    assert.ok(theirs.n1 >= 24 && theirs.n0 <= 2, `migratepages 0 1: ${JSON.stringify(theirs)}`);
    assert.ok(paced.n0 >= 24 && paced.n1 <= 2, `numakit migrate --rate 1 0: ${JSON.stringify(paced)}`);
    assert.match(s.stderr, /^pid \d+: moved [\d.]+ MiB from node 1 to node 0 in [\d.]+ s/m);
    const pj = JSON.parse(readFileSync(join(run.outDir, 'paced.json'), 'utf8'));
    assert.equal(pj.mover, 'paced');
    assert.equal(pj.end, 'done');
    assert.ok(pj.movedBytes >= 24 << 20 && pj.threadsMoved >= 1, JSON.stringify(pj));
    const stopped = at('stopped');
    assert.equal(stopped.rc, 130);
    const sj = JSON.parse(readFileSync(join(run.outDir, 'stopped.json'), 'utf8'));
    assert.equal(sj.end, 'stopped');
    assert.equal(sj.signal, 'SIGINT');
    assert.ok(sj.movedBytes > 0 && sj.movedBytes < sj.plannedBytes, JSON.stringify(sj));
    assert.ok(stopped.n1 > 0 && stopped.n0 > 0, `stopped part way: ${JSON.stringify(stopped)}`);
  });
});
