// Property: for random machines (1 to 8 nodes of 4 GiB to 4 TiB, 1 to 128 cores each, with or
// without SMT, some memory-only nodes) and random options (overhead 10-20%, fractions, pools and
// heaps up to the whole machine), no plan commits more on any node than MemTotal minus its
// stated reserve, max(10% of MemTotal, 2 GiB); what it commits adds up to what it configures;
// and a plan that cannot fit refuses with the numbers instead. NUMAKIT_PROPERTY_RUNS=N runs more cases.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { NumakitError } from '../../../src/model/errors.js';
import type { Cpu, NumaNode, Topology } from '../../../src/model/topology.js';
import type { DbDecision } from '../../../src/policy/plan/db.js';
import { planWorkload, type PlanDecision } from '../../../src/policy/plan/index.js';
import type { JvmDecision } from '../../../src/policy/plan/jvm.js';
import { machineShare } from '../../../src/policy/plan/machine.js';
import type { RedisDecision } from '../../../src/policy/plan/redis.js';
import type { MachineShare } from '../../../src/policy/plan/types.js';
import { parseOsRelease } from '../../../src/sysfs/os_release.js';
import { kernel } from '../doctor/build.js';

const GiB = 2 ** 30;
const RUNS = Number(process.env.NUMAKIT_PROPERTY_RUNS ?? 150);

interface NodeSpec {
  memGiB: number;
  cores: number;
  smt: boolean;
  memoryOnly: boolean;
}

const nodeSpec = fc.record({
  // 4 GiB to 4 TiB, in MiB steps (MemTotal is never a round number on a real machine)
  memGiB: fc.integer({ min: 4 * 1024, max: 4 * 1024 * 1024 }).map((mib) => mib / 1024),
  cores: fc.integer({ min: 1, max: 128 }),
  smt: fc.boolean(),
  memoryOnly: fc.boolean().map((b) => b && Math.random() < 0.3),
});

function machine(specs: NodeSpec[]): MachineShare {
  const nodes: NumaNode[] = [];
  const cpus: Cpu[] = [];
  specs.forEach((s, id) => {
    const memoryOnly = s.memoryOnly && id > 0;
    const ids: number[] = [];
    if (!memoryOnly) {
      for (let core = 0; core < s.cores; core++) {
        const threads = s.smt ? [cpus.length, cpus.length + 1] : [cpus.length];
        for (const t of threads)
          cpus.push({
            id: t,
            node: id,
            online: true,
            package: id,
            die: 0,
            cluster: null,
            core,
            siblings: threads,
            l3: [],
            allowed: true,
          });
        ids.push(...threads);
      }
    }
    nodes.push({
      id,
      cpus: ids,
      memTotalBytes: s.memGiB * GiB,
      memFreeBytes: s.memGiB * GiB * 0.9,
      hasCpu: ids.length > 0,
      hasMemory: true,
      hasNormalMemory: true,
      distances: {},
      hugepages: [],
      access: null,
      access1: null,
      memoryTier: null,
    });
  });
  const topo: Topology = {
    nodes,
    cpus,
    devices: [],
    caches: [],
    possibleNodes: nodes.map((n) => n.id),
    possibleCpus: cpus.map((c) => c.id),
    kernel: kernel(),
    warnings: [],
    cpuset: null,
  };
  return machineShare({
    topology: topo,
    label: 'property',
    os: parseOsRelease('ID=debian\nVERSION_ID=12\n'),
    cgroup: { mems: null },
  });
}

const share = (m: MachineShare, node: number) => m.usable.find((u) => u.node === node)!;
/** The stated share, computed here from MemTotal alone. */
const budget = (memGiB: number) => memGiB - Math.max(0.1 * memGiB, 2);

/** Checks a plan's memory against every node; returns what it commits in total. */
function checkMemory(m: MachineShare, d: PlanDecision): number {
  let total = 0;
  for (const n of d.memory.nodes) {
    const mem = share(m, n.node).memGiB;
    assert.ok(
      n.reserveGiB >= 0.1 * mem - 1e-9 && n.reserveGiB >= 2 - 1e-9,
      `node ${n.node}: reserve ${n.reserveGiB} of ${mem}`,
    );
    assert.ok(
      Math.abs(n.budgetGiB - budget(mem)) < 1e-9,
      `node ${n.node}: stated budget ${n.budgetGiB}, MemTotal ${mem}`,
    );
    assert.ok(
      n.committedGiB <= budget(mem) + 1e-9,
      `node ${n.node}: commits ${n.committedGiB} GiB of ${mem} GiB, over ${budget(mem)}`,
    );
    assert.ok(Math.abs(n.items.reduce((a, c) => a + c.gib, 0) - n.committedGiB) < 1e-9);
    total += n.committedGiB;
  }
  return total;
}

function refusedWithNumbers(e: unknown): true {
  assert.ok(e instanceof NumakitError, String(e));
  assert.match(e.message, /\d/, `a refusal names the numbers: ${e.message}`);
  return true;
}

/** Plans, or checks the refusal; returns the decision or null. */
function tryPlan(workload: string, m: MachineShare, raw: Record<string, string | boolean>): PlanDecision | null {
  try {
    return planWorkload(workload, m, raw);
  } catch (e) {
    refusedWithNumbers(e);
    return null;
  }
}

const machines = fc
  .array(nodeSpec, { minLength: 1, maxLength: 8 })
  .filter((specs) => specs.some((s, i) => i === 0 || !s.memoryOnly));

test("spark: no executor, overhead and daemons over a node's budget; one executor per usable node", () => {
  fc.assert(
    fc.property(
      machines,
      fc.integer({ min: 10, max: 20 }),
      fc.option(fc.double({ min: 0.25, max: 0.95, noNaN: true }), { nil: null }),
      fc.constantFrom('spark-standalone', 'spark-yarn', 'spark-k8s'),
      (specs, overhead, fraction, workload) => {
        const m = machine(specs);
        const raw: Record<string, string> = {
          overhead: `${overhead}`,
          ...(fraction === null ? {} : { 'memory-fraction': fraction.toFixed(2) }),
          ...(workload === 'spark-k8s' ? { 'k8s-node': 'w1' } : {}),
        };
        const d = tryPlan(workload, m, raw);
        if (d === null) return;
        assert.ok(d.kind === 'spark-standalone' || d.kind === 'spark-yarn' || d.kind === 'spark-k8s');
        checkMemory(m, d);
        const s = d.sizing;
        assert.ok(s.overheadGiB >= Math.ceil((s.memoryGiB * overhead) / 100 - 1e-9), 'overhead at least its share');
        const perNode = s.memoryGiB + s.overheadGiB + s.daemons.reduce((a, c) => a + c.gib, 0);
        // Bound to their node, except on a machine of one node (nothing to bind to; spark-k8s leaves it to the kubelet's one-node cpuset).
        const policy = specs.length === 1 && d.kind !== 'spark-k8s' ? 'none' : 'bind';
        for (const n of d.memory.nodes)
          assert.ok(
            Math.abs(n.committedGiB - perNode) < 1e-9 && n.policy === policy,
            `node ${n.node} commits what the executor is, ${n.policy}`,
          );
        assert.equal(d.memory.nodes.length, m.usable.length);
      },
    ),
    { numRuns: RUNS },
  );
});

test('mysql and postgres: bind only within the budget, the whole server accounted for, or a refusal', () => {
  fc.assert(
    fc.property(
      machines,
      fc.double({ min: 0.01, max: 1, noNaN: true }),
      fc.constantFrom('mysql', 'postgres'),
      (specs, share_, engine) => {
        const m = machine(specs);
        const totalGiB = m.usable.reduce((a, s) => a + s.memGiB, 0);
        const pool = Math.max(1, Math.floor(totalGiB * share_));
        const d = tryPlan(engine, m, { 'buffer-pool': `${pool}g` }) as DbDecision | null;
        if (d === null) return;
        const total = checkMemory(m, d);
        assert.ok(
          Math.abs(total - (d.poolGiB + d.serverGiB)) < 1e-6,
          `accounted ${total} of ${d.poolGiB + d.serverGiB}`,
        );
        if (d.policy === 'bind') assert.ok(d.poolGiB + d.serverGiB <= budget(share(m, d.node).memGiB) + 1e-9);
      },
    ),
    { numRuns: RUNS },
  );
});

test("redis: the instances and their BGSAVE forks fit each node's budget", () => {
  fc.assert(
    fc.property(machines, fc.boolean(), (specs, perCore) => {
      const m = machine(specs);
      const d = tryPlan('redis', m, perCore ? { 'per-core': true } : {}) as RedisDecision | null;
      if (d === null) return;
      checkMemory(m, d);
      for (const node of new Set(d.instances.map((i) => i.node))) {
        const on = d.instances.filter((i) => i.node === node);
        const worst = on.reduce((a, i) => a + 2 * (i.maxmemoryMb * 1.1 + 64), 0) / 1024;
        assert.ok(worst <= budget(share(m, node).memGiB) + 1e-9, `node ${node}: ${worst} GiB with forks`);
      }
    }),
    { numRuns: RUNS },
  );
});

test('jvm and elasticsearch: bound per node only within the budget, else interleaved within every budget, else refused', () => {
  fc.assert(
    fc.property(
      machines,
      fc.double({ min: 0.005, max: 1, noNaN: true }),
      fc.constantFrom('jvm', 'elasticsearch'),
      (specs, share_, flavour) => {
        const m = machine(specs);
        const totalGiB = m.usable.reduce((a, s) => a + s.memGiB, 0);
        const heap = Math.max(1, Math.floor(totalGiB * share_));
        const d = tryPlan(flavour, m, {
          heap: `${heap}g`,
          ...(flavour === 'jvm' ? { jar: '/opt/a.jar' } : {}),
        }) as JvmDecision | null;
        if (d === null) return;
        const total = checkMemory(m, d);
        const jvm = d.heapGiB + Math.max(1, d.heapGiB * 0.1);
        assert.ok(
          Math.abs(total - (d.mode === 'per-node' ? jvm * d.instances.length : jvm)) < 1e-6,
          `accounted ${total}`,
        );
        if (flavour === 'elasticsearch' && d.mode === 'per-node')
          for (const i of d.instances) assert.ok(d.heapGiB <= share(m, i.node).memGiB * 0.5);
      },
    ),
    { numRuns: RUNS },
  );
});
