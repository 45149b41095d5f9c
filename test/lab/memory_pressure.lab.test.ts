// The agent under memory pressure on a real kernel (issue 28 item 3), in one 2-node guest: a
// first run of `agent --once` in a cgroup without a limit measures its need (memory.peak); a
// second, on a fresh misplaced process and with the page cache dropped, runs in a cgroup whose
// memory.max is that need + 4 MiB (its page cache, read again, is reclaimed at the limit: memory.events
// max counted 12 at + 2 MiB). It moves the process, exits 0, and the cgroup saw no OOM kill.
// What the agent does when a read or write does fail with ENOMEM is tested without a guest
// (test/unit/agent/memory_pressure.test.ts); the long run under a limit is the soak harness's
// (bench/soak.mjs --agent-memory-max, docs/reliability.md).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sectionOk } from './assert.js';
import { NUMAKIT } from './numakit.js';
import { runSections, type SectionsRun } from './sections.js';
import { TWO_NODE } from './topologies.js';

const HOG = `const fs = require('fs');
const b = Buffer.alloc(64 << 20, 1);
fs.writeFileSync(process.argv[2], '');
for (;;) for (let i = 0; i < b.length; i += 4096) b[i]++;`;

const SECTIONS = {
  pressure: `set -e
# AutoNUMA off: it would move the misplaced process before the agent does (agent --once leaves it as it is).
echo 0 > /proc/sys/kernel/numa_balancing
cg=/sys/fs/cgroup
[ -e $cg/cgroup.controllers ] || mount -t cgroup2 none $cg
echo +memory > $cg/cgroup.subtree_control
cat > /tmp/hog.js <<'EOF2'
${HOG}
EOF2
# A busy process with its 64 MiB on node 1 and its thread on node 0 (first touch, then moved).
hog() { taskset -c 2-3 node /tmp/hog.js /tmp/$1 > /dev/null 2>&1 & h=$!; while [ ! -e /tmp/$1 ]; do sleep 0.2; done; taskset -a -p -c 0-1 $h > /dev/null; echo $h; }
agent() { sh -c "echo \\$\\$ > $cg/$1/cgroup.procs; exec ${NUMAKIT} agent --once --interval 3s --override-pins --state-dir /tmp/state-$1" 2>&1; }
mkdir $cg/probe $cg/tight
h1=$(hog ready1)
agent probe
need=$(cat $cg/probe/memory.peak)
kill $h1
h2=$(hog ready2)
sync; echo 3 > /proc/sys/vm/drop_caches
echo $((need + 4 * 1048576)) > $cg/tight/memory.max
set +e
agent tight; rc=$?
set -e
echo "need=$need max=$(cat $cg/tight/memory.max) peak=$(cat $cg/tight/memory.peak) rc=$rc pid=$h2"
cat $cg/tight/memory.events
grep -o 'N[01]=[0-9]*' /proc/$h2/numa_maps | sort | uniq -c | head
kill $h2`,
};

describe('the agent under a memory.max a little above its need (2node guest)', () => {
  let run: SectionsRun;
  before(async () => {
    run = await runSections(TWO_NODE, SECTIONS, { timeoutMs: 600_000 });
  });
  after(() => run?.cleanup());

  it('memory.max = its measured peak + 4 MiB: it moves the misplaced process and exits 0, no OOM kill', (t) => {
    const s = sectionOk(run, 'pressure');
    const m = /^need=(\d+) max=(\d+) peak=(\d+) rc=(\d+) pid=(\d+)$/m.exec(s.stdout);
    assert.ok(m, s.stdout);
    const [, need, max, peak, rc, pid] = m;
    t.diagnostic(`need ${need} B, memory.max ${max} B, peak under it ${peak} B`);
    for (const line of s.stdout.split('\n').filter((l) => /^(max|oom|oom_kill|high|low) \d+$/.test(l)))
      t.diagnostic(`memory.events ${line}`);
    assert.equal(rc, '0', s.stdout);
    assert.match(s.stdout, /^oom_kill 0$/m, s.stdout);
    assert.match(s.stdout, new RegExp(`moved pid ${pid} \\(node\\)`), s.stdout);
    assert.ok(Number(peak) <= Number(max), s.stdout);
  });
});
