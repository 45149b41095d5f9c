import assert from 'node:assert/strict';
import { test } from 'node:test';
import { planWorkload } from '../../../src/policy/plan/index.js';
import type { SparkStandaloneDecision } from '../../../src/policy/plan/spark_standalone.js';
import { renderPlan } from '../../../src/render/plan/index.js';
import { exampleMachine } from './machines.js';

const plan = (machine: string, raw = {}) =>
  planWorkload('spark-standalone', exampleMachine(machine), raw) as SparkStandaloneDecision;
const file = async (d: SparkStandaloneDecision, suffix: string) =>
  (await renderPlan(d)).find((f) => f.path.endsWith(suffix))!.content;

test("spark-2s: field report 000's cores (13 per node, 26 on the host) and the largest executor that fits the node's budget: 73g + 11g + 1g worker <= 96 - 9.6", async () => {
  const d = plan('spark-2s');
  assert.equal(d.workers.length, 2);
  assert.deepEqual([d.sizing.cores, d.sizing.memoryGiB, d.sizing.overheadGiB, d.sizing.hostCores], [13, 73, 11, 26]);
  const why = d.derivations.map((x) => x.formula);
  assert.ok(why.includes('16 physical cores x 0.8 = 12.8 -> 13'));
  assert.ok(why.includes('reserve max(96 x 10% = 9.6, 2) = 9.6 GiB; 96 - 9.6 = 86.4 GiB'));
  assert.ok(
    why.includes('largest E with E + ceil(E x 15%) + 1 (worker JVM) <= 86.4 GiB: 73 + 11 + 1 = 85'),
    why.join('\n'),
  );
  assert.ok(why.includes('13 + 13 = 26'));
  const defaults = await file(d, 'spark-defaults.conf');
  assert.match(defaults, /^spark\.executor\.cores\s+13$/m);
  assert.match(defaults, /^spark\.executor\.memory\s+73g$/m);
  assert.match(defaults, /^spark\.executor\.memoryOverhead\s+11g$/m);
  assert.deepEqual(
    d.memory.nodes.map((n) => [n.node, n.committedGiB, n.budgetGiB, n.policy]),
    [
      [0, 85, 86.4, 'bind'],
      [1, 85, 86.4, 'bind'],
    ],
  );
});

test('PLAN.md shows the usual 82g/12g recipe next to the safe numbers, with the arithmetic', async () => {
  const md = await file(plan('spark-2s'), 'PLAN.md');
  assert.match(
    md,
    /^\| executor memory \| 96 x 0\.85 = 81\.6 -> 82g \| 73g: the largest heap that fits the node's budget \|$/m,
  );
  assert.match(md, /^\| memory overhead \| 82g x 15% = 12\.3 -> 12g \| 73g x 15% = 10\.95 -> 11g \(rounded up\) \|$/m);
  assert.match(
    md,
    /^\| committed on node 0 \(96 GiB\) \| 82 \+ 12 \+ 1 = 95 GiB \(99%\) \| 73 \+ 11 \+ 1 = 85 GiB \(89%\) \|$/m,
  );
  assert.match(
    md,
    /^\| 0 \| 96 GiB \| 9\.6 GiB \| 86\.4 GiB \| 85 GiB: executor heap 73 \+ overhead 11 \+ worker JVM 1 \| 11 GiB \| 88\.5 GiB \| bind \|$/m,
  );
  assert.match(md, /breaks its own rule: it commits 99% of node 0/);
});

test('--memory-fraction: kept when it fits the budget, else the smaller heap that does, and PLAN.md says why', () => {
  assert.equal(plan('spark-2s', { 'memory-fraction': '0.5' }).sizing.memoryGiB, 48);
  const d = plan('spark-2s', { 'memory-fraction': '0.85' });
  assert.equal(d.sizing.memoryGiB, 73);
  assert.ok(
    d.notes.some((n) =>
      /--memory-fraction 0\.85 asks for 82g executors on node 0; .* 96 GiB, over the node's 86\.4 GiB budget/.test(n),
    ),
    d.notes.join('\n'),
  );
});

test('each worker gets its node, CPUs, NVMe-backed local dir and its own ports', async () => {
  const d = plan('spark-2s');
  assert.deepEqual(
    d.workers.map((w) => [w.node, w.cpuList, w.localDisk, w.port, w.webuiPort]),
    [
      [0, '0-15,32-47', 'nvme0n1', 7078, 8081],
      [1, '16-31,48-63', 'nvme1n1', 7079, 8082],
    ],
  );
  const unit1 = await file(d, 'spark-worker-node1.service');
  assert.match(unit1, /^Environment=SPARK_NUMA_NODE=1$/m);
  assert.match(unit1, /^Environment=SPARK_LOCAL_DIRS=\/data\/node1\/spark_local$/m);
  assert.match(unit1, /^Environment=SPARK_DAEMON_MEMORY=1g$/m);
  assert.match(unit1, /--cores 13 --memory 84g .*--port 7079 --webui-port 8082 spark:\/\/master:7077$/m);
  assert.match(await file(d, 'numakit-irq-affinity.sh'), /^pin_nic_irqs ens2f0 16-31,48-63/m);
});

test('memory-only nodes get no worker and devices on an unknown node are not assigned', async () => {
  const d = plan('cxl-3node');
  assert.deepEqual(
    d.workers.map((w) => w.node),
    [0, 1],
  );
  assert.ok(d.workers.every((w) => w.localDisk === null));
  assert.ok(d.notes.some((n) => /node 2 is memory-only/.test(n)));
  assert.ok(d.notes.some((n) => /nvme0: on an unknown node \(firmware gives no numa_node\)/.test(n)));
  assert.match(await file(d, 'PLAN.md'), /node 2 is memory-only/);
});

test('options change the arithmetic and are shown in the derivation', () => {
  const d = plan('spark-2s', { 'cores-fraction': '0.5', overhead: '10', hosts: '10' });
  assert.equal(d.sizing.cores, 8);
  assert.equal(d.sizing.overheadGiB, 8);
  assert.equal(d.coresMax, 160);
  assert.ok(d.derivations.some((x) => x.formula === '16 physical cores x 0.5 = 8 -> 8'));
});

test('bad options are refused with one clear line', () => {
  assert.throws(() => plan('spark-2s', { user: 'spark;rm' }), /--user: 'spark;rm' refused/);
  assert.throws(() => plan('spark-2s', { 'spark-home': '/opt/my spark' }), /--spark-home: .* refused/);
  assert.throws(() => plan('spark-2s', { master: 'spark://m:7077;reboot' }), /--master: .* refused/);
  assert.throws(() => plan('spark-2s', { overhead: '40' }), /--overhead: 40 is out of range 10..20/);
  assert.equal(plan('spark-2s', { 'memory-fraction': '0.95', overhead: '20' }).sizing.memoryGiB, 70); // 70 + ceil(14) + 1 = 85 <= 86.4; 71 + 15 + 1 = 87 is not
  assert.throws(() => plan('spark-2s', { heap: '4g' }), /--heap does not apply/);
});

test('one NUMA node (vm-flat-32): one unbound worker, no wrapper or IRQ pinning, the same memory arithmetic, and PLAN.md says why', async () => {
  const d = plan('vm-flat-32');
  assert.equal(d.bound, false);
  assert.deepEqual(
    d.workers.map((w) => w.node),
    [0],
  );
  assert.deepEqual(
    d.memory.nodes.map((n) => [n.committedGiB, n.budgetGiB, n.policy]),
    [[115, 115.2, 'none']],
  );
  const paths = (await renderPlan(d)).map((f) => f.path);
  assert.ok(!paths.some((p) => p.endsWith('/bin/java') || p.endsWith('numakit-irq-affinity.sh')), paths.join('\n'));
  const unit = await file(d, 'spark-worker-node0.service');
  assert.doesNotMatch(unit, /SPARK_NUMA_NODE|JAVA_HOME|numa-java/);
  assert.doesNotMatch(await file(d, 'spark-defaults.conf'), /executorEnv\.JAVA_HOME/);
  const md = await file(d, 'PLAN.md');
  assert.match(md, /This machine has one NUMA node: .* nothing is bound/);
  assert.match(md, /there is no other node to take memory from/);
  assert.doesNotMatch(
    md,
    /per NUMA node \(|both workers|all \d+ workers|other node's memory|numactl --|--membind|numastat/,
  );
  assert.match(md, /`numakit doctor --profile spark`/);
});
