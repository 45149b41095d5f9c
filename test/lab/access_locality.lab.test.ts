// Access locality (numatop's question) against a real kernel, in one 2-node guest: two busy
// processes on node 0's CPUs with NUMA balancing on, one in a cpuset allowing only node 1's memory
// (bound remote: the kernel cannot migrate its pages to node 0, so its hinting faults stay remote),
// one only node 0's. numakit stat --procs shows ACCESS near 0 and near 1. The PMU path is not here:
// TCG has no PMU.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sectionOk } from './assert.js';
import { NUMAKIT } from './numakit.js';
import { runSections, type SectionsRun } from './sections.js';
import { TWO_NODE } from './topologies.js';

const TOUCH = `const b = Buffer.alloc(96 << 20, 1);
for (;;) for (let i = 0; i < b.length; i += 4096) b[i]++;`;
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
sleep 12
${NUMAKIT} stat --procs --top 50 > /tmp/procs.txt
echo "remote=$r local=$l"; cat /proc/$r/cgroup /proc/$l/cgroup
cat /tmp/procs.txt
grep -E 'numa_faults|current_node' /proc/$r/sched
kill $r $l`,
};

describe('access locality in a 2node guest', () => {
  let run: SectionsRun;
  before(async () => {
    run = await runSections(TWO_NODE, SECTIONS, { timeoutMs: 600_000 });
  });
  after(() => run?.cleanup());

  it('access locality: the process bound to remote memory accesses remote memory, the local one local', () => {
    const s = sectionOk(run, 'access');
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
});
