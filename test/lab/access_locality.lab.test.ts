// Access locality (numatop's question) against a real kernel, in one 2-node guest: two busy
// processes on node 0's CPUs with NUMA balancing on, one in a cpuset allowing only node 1's memory
// (bound remote: the kernel cannot migrate its pages to node 0, so its hinting faults stay remote),
// one only node 0's. numakit stat --procs shows ACCESS near 0 and near 1. Then the agent's use of
// it: a process whose pages are mostly on node 1 (a cold 160 MiB buffer touched once while it ran
// there) but whose accesses are local (a hot 24 MiB buffer on node 0, where it runs now) is left
// alone as cold-memory by `agent --advise --numa-balancing keep`, where the pages alone would move
// it. The PMU path is not here: TCG has no PMU (test/unit/stat/pmu_access.test.ts, docs/stat.md).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sectionOk } from './assert.js';
import { NUMAKIT } from './numakit.js';
import { runSections, type SectionsRun } from './sections.js';
import { TWO_NODE } from './topologies.js';

const TOUCH = `const b = Buffer.alloc(96 << 20, 1);
for (;;) for (let i = 0; i < b.length; i += 4096) b[i]++;`;
const COLD_THEN_HOT = `const fs = require('fs');
const cold = Buffer.alloc(160 << 20, 1);
fs.writeFileSync('/tmp/cold-done', String(cold.length));
const nap = new Int32Array(new SharedArrayBuffer(4));
while (!fs.existsSync('/tmp/go')) Atomics.wait(nap, 0, 0, 100);
const hot = Buffer.alloc(24 << 20, 1);
fs.writeFileSync('/tmp/hot-done', String(hot.length));
for (;;) for (let i = 0; i < hot.length; i += 4096) hot[i]++;`;
/**
 * Shell: `faults PID` prints "TOTAL ON_NODE0", the main thread's recent NUMA hinting faults from
 * /proc/PID/sched (numa_faults lines: task_private + task_shared per node), with bash builtins
 * only; `await_faults PID MIN SHARE` polls until there are MIN of them and SHARE percent on node 0,
 * 60 s at most. The kernel's scans come at its own pace (slower under TCG on a loaded host): the
 * sections wait for the statistics they need instead of a fixed time.
 */
const FAULTS = `faults() {
  local t=0 z=0 l f
  while read -r l; do
    [[ $l == "numa_faults node="* ]] || continue
    f=(\${l//=/ }); t=$((t + f[4] + f[6])); if [ "\${f[2]}" = 0 ]; then z=$((z + f[4] + f[6])); fi
  done < /proc/$1/sched
  echo "$t $z"
}
await_faults() {
  local t z start=$SECONDS
  while :; do
    read -r t z <<< "$(faults $1)"
    if [ $t -ge $2 ] && [ $((z * 100)) -ge $((t * $3)) ] || [ $((SECONDS - start)) -ge 60 ]; then break; fi
    sleep 0.25
  done
  echo "pid $1: $t recent NUMA faults, $z on node 0, after $((SECONDS - start)) s"
}`;
const SECTIONS = {
  access: `set -e
echo 1 > /proc/sys/kernel/numa_balancing
cg=/sys/fs/cgroup
[ -e $cg/cgroup.controllers ] || mount -t cgroup2 none $cg
echo +cpuset > $cg/cgroup.subtree_control
for g in remote:1 local:0; do mkdir -p $cg/\${g%:*}; echo 0-1 > $cg/\${g%:*}/cpuset.cpus; echo \${g#*:} > $cg/\${g%:*}/cpuset.mems; done
cat > /tmp/touch.js <<'EOF2'
${TOUCH}
EOF2
sh -c 'echo $$ > /sys/fs/cgroup/remote/cgroup.procs; exec node /tmp/touch.js' & r=$!
sh -c 'echo $$ > /sys/fs/cgroup/local/cgroup.procs; exec node /tmp/touch.js' & l=$!
${FAULTS}
# Enough faults to judge each by (the agent's own floor is 32).
await_faults $r 64 0; await_faults $l 64 0
${NUMAKIT} stat --procs --top 50 > /tmp/procs.txt
echo "remote=$r local=$l"; cat /proc/$r/cgroup /proc/$l/cgroup
cat /tmp/procs.txt
grep -E 'numa_faults|current_node' /proc/$r/sched
kill $r $l`,
  agent: `set -e
echo 1 > /proc/sys/kernel/numa_balancing
cat > /tmp/cold.js <<'EOF2'
${COLD_THEN_HOT}
EOF2
taskset -c 2-3 node /tmp/cold.js & p=$!
while [ ! -e /tmp/cold-done ]; do sleep 0.2; done
taskset -a -p -c 0-1 $p > /dev/null
touch /tmp/go
while [ ! -e /tmp/hot-done ]; do sleep 0.2; done
${FAULTS}
# Until the hot buffer's faults outweigh those the cold one left on node 1 (they decay at each scan).
await_faults $p 64 95
echo "pid=$p"
grep -E 'numa_faults|current_node' /proc/$p/sched
${NUMAKIT} agent --advise --once --numa-balancing keep --override-pins --granularity process --interval 4s 2>&1
kill $p`,
};

describe('access locality in a 2node guest', () => {
  let run: SectionsRun;
  before(async () => {
    run = await runSections(TWO_NODE, SECTIONS, { timeoutMs: 600_000 });
  });
  after(() => run?.cleanup());

  it('access locality: the process bound to remote memory accesses remote memory, the local one local', (t) => {
    const s = sectionOk(run, 'access');
    for (const line of s.stdout.split('\n').filter((l) => / recent NUMA faults, /.test(l))) t.diagnostic(line);
    const [, r, l] = /^remote=(\d+) local=(\d+)$/m.exec(s.stdout) ?? [];
    const access = (pid: string | undefined) => {
      const line = s.stdout.split('\n').find((x) => x.startsWith(`${pid} `));
      assert.ok(line, `pid ${pid} in stat --procs:\n${s.stdout}`);
      // PID COMM MEMORY(2) REMOTE(2) LOCALITY ACCESS ...
      return Number(line.split(/\s+/)[7]);
    };
    assert.match(s.stdout, /LOCALITY +ACCESS/);
    assert.ok(access(r) < 0.3, `remote process: ${access(r)}\n${s.stdout}`);
    assert.ok(access(l) > 0.7, `local process: ${access(l)}\n${s.stdout}`);
  });

  it('the agent: pages mostly remote, accesses local: left alone as cold-memory, the line giving both', (t) => {
    const s = sectionOk(run, 'agent');
    for (const line of s.stdout
      .split('\n')
      .filter((l) => /cold-memory|numa_faults|current_node| recent NUMA faults, /.test(l)))
      t.diagnostic(line);
    const pid = /^pid=(\d+)$/m.exec(s.stdout)?.[1];
    assert.match(
      s.stdout,
      new RegExp(
        `cold-memory pid ${pid} \\(node\\): its pages are \\d+% local but its accesses (9\\d|100)% local \\(\\d+ recent NUMA faults\\)`,
      ),
      s.stdout,
    );
  });
});
