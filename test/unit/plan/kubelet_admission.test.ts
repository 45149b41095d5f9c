// spark-k8s's files as the kubelet admits them. This reimplements the kubelet's documented
// arithmetic (kubernetes.io docs "Reserve Compute Resources for System Daemons", "Control CPU
// Management Policies", "Control Topology Management Policies", "Utilizing the NUMA-aware Memory
// Manager"; pkg/kubelet/cm/cpumanager, topologymanager, memorymanager) on the rendered
// KubeletConfiguration drop-in, pod template and spark-defaults.conf, for the machine's nodes:
//   start-up: sum(reservedMemory) = kubeReserved + systemReserved + evictionHard (memory), each
//     reservedMemory on an existing NUMA node and not zero, else the Memory Manager refuses to start;
//   node allocatable: memory = capacity - kubeReserved - systemReserved - evictionHard;
//     cpu = CPUs - reservedSystemCPUs;
//   a Guaranteed pod: requests = limits, whole CPUs; with full-pcpus-only, a multiple of the
//     threads per core (else SMTAlignmentError);
//   single-numa-node at pod scope: the pod is admitted only when one NUMA node has both its CPUs
//     (free whole cores outside reservedSystemCPUs) and its memory (MemTotal - reservedMemory -
//     what earlier pods took there); else TopologyAffinityError.
// Spark sets the executor container's resources itself (memory = spark.executor.memory +
// memoryOverhead, cpu = spark.kubernetes.executor.request/limit.cores): the template must agree.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'yaml';
import { parseCpuList } from '../../../src/model/cpuset.js';
import { planWorkload } from '../../../src/policy/plan/index.js';
import type { MachineShare } from '../../../src/policy/plan/types.js';
import { renderPlan } from '../../../src/render/plan/index.js';
import { exampleMachine, exampleNames } from './machines.js';

const Mi = 1024 ** 2;
const UNIT: Record<string, number> = { Ki: 1024, Mi, Gi: 1024 ** 3, Ti: 1024 ** 4, '': 1 };
const bytes = (q: string | undefined) => {
  if (q === undefined) return 0;
  const m = /^(\d+)(Ki|Mi|Gi|Ti|)$/.exec(q);
  assert.ok(m, `a memory quantity: ${q}`);
  return Number(m[1]) * UNIT[m[2]!]!;
};
const sparkMi = (v: string) => {
  const m = /^(\d+)([mg])$/.exec(v);
  assert.ok(m, `a Spark size: ${v}`);
  return Number(m[1]) * (m[2] === 'g' ? 1024 : 1);
};

interface Kubelet {
  cpuManagerPolicyOptions?: Record<string, string>;
  topologyManagerPolicy: string;
  topologyManagerScope: string;
  memoryManagerPolicy: string;
  reservedSystemCPUs: string;
  kubeReserved?: { memory?: string };
  systemReserved?: { memory?: string };
  evictionHard?: { 'memory.available'?: string };
  reservedMemory: { numaNode: number; limits: { memory: string } }[];
}
interface Pod {
  cpu: number;
  memory: number;
}

/** The Memory Manager's start-up check; returns the per-node reservation. */
function startUp(k: Kubelet, m: MachineShare): Map<number, number> {
  const evict = bytes(k.evictionHard?.['memory.available'] ?? '100Mi');
  const want = bytes(k.kubeReserved?.memory) + bytes(k.systemReserved?.memory) + evict;
  const per = new Map(k.reservedMemory.map((r) => [r.numaNode, bytes(r.limits.memory)]));
  const sum = [...per.values()].reduce((a, b) => a + b, 0);
  assert.equal(sum, want, 'sum(reservedMemory) = kubeReserved + systemReserved + evictionHard');
  for (const [n, b] of per) {
    assert.ok(
      m.usable.some((u) => u.node === n),
      `reservedMemory on NUMA node ${n}, which exists`,
    );
    assert.ok(b > 0, `reservedMemory of node ${n} is not zero`);
  }
  return per;
}

/** Admits `pods` in turn; returns the NUMA node of each, or the first refusal. */
function admit(k: Kubelet, m: MachineShare, pods: Pod[]): number[] | string {
  const reservedMem = startUp(k, m);
  const reservedCpus = new Set(parseCpuList(k.reservedSystemCPUs));
  const evict = bytes(k.evictionHard?.['memory.available'] ?? '100Mi');
  // Capacity is the machine's MemTotal, memory-only nodes included.
  const capacity = m.totalMemGiB * 1024 ** 3;
  let allocMem = capacity - bytes(k.kubeReserved?.memory) - bytes(k.systemReserved?.memory) - evict;
  let allocCpu = m.usable.reduce((a, u) => a + u.cpus.length, 0) - reservedCpus.size;
  const fullPcpus = k.cpuManagerPolicyOptions?.['full-pcpus-only'] === 'true';
  const nodes = m.usable.map((u) => ({
    node: u.node,
    tpc: u.threadsPerCore,
    freeCores: u.coreGroups.filter((g) => g.every((c) => !reservedCpus.has(c))).map((g) => g.length),
    freeMem: u.memBytes - (reservedMem.get(u.node) ?? 0),
  }));
  const placed: number[] = [];
  for (const [i, p] of pods.entries()) {
    if (p.memory > allocMem || p.cpu > allocCpu) return `pod ${i + 1}: over the node's allocatable`;
    const tpc = Math.min(...nodes.map((n) => n.tpc));
    if (fullPcpus && p.cpu % tpc !== 0) return `pod ${i + 1}: SMTAlignmentError (${p.cpu} CPUs, ${tpc} per core)`;
    const fit = nodes.find((n) => {
      // Whole cores first (full-pcpus-only), then what is left of partly taken ones.
      const cores = Math.ceil(p.cpu / n.tpc);
      return n.freeCores.filter((c) => c === n.tpc).length >= cores && n.freeMem >= p.memory;
    });
    if (fit === undefined)
      return `pod ${i + 1}: TopologyAffinityError (no single NUMA node has ${p.cpu} CPUs and ${p.memory / Mi}Mi)`;
    fit.freeCores.splice(0, Math.ceil(p.cpu / fit.tpc));
    fit.freeMem -= p.memory;
    allocMem -= p.memory;
    allocCpu -= p.cpu;
    placed.push(fit.node);
  }
  return placed;
}

async function planOf(machine: string) {
  const m = exampleMachine(machine);
  const fs = await renderPlan(planWorkload('spark-k8s', m, { 'k8s-node': 'w1' }));
  const get = (suffix: string) => fs.find((f) => f.path.endsWith(suffix))!.content;
  const k = parse(get('50-numakit-numa.conf')) as Kubelet;
  const template = parse(get('executor-pod-template.yaml')) as {
    spec: { containers: { resources: { requests: Record<string, string>; limits: Record<string, string> } }[] };
  };
  const conf = new Map(
    get('spark-defaults.conf')
      .split('\n')
      .filter((l) => l.trim() !== '' && !l.startsWith('#'))
      .map((l) => l.trim().split(/\s+/, 2) as [string, string]),
  );
  return { m, k, template, conf };
}

test('kubelet admits every executor pod of the plan on one NUMA node each, on every example machine', async () => {
  const rows: string[] = [];
  for (const machine of exampleNames()) {
    let p: Awaited<ReturnType<typeof planOf>>;
    try {
      p = await planOf(machine);
    } catch (e) {
      assert.match(String(e), /the smallest executor needs|do not fit/, machine);
      continue;
    }
    const { m, k, template, conf } = p;
    assert.deepEqual(
      [k.topologyManagerPolicy, k.topologyManagerScope, k.memoryManagerPolicy],
      ['single-numa-node', 'pod', 'Static'],
    );
    const res = template.spec.containers[0]!.resources;
    assert.deepEqual(res.requests, res.limits, `${machine}: Guaranteed (requests = limits)`);
    const pod: Pod = { cpu: Number(res.requests.cpu), memory: bytes(res.requests.memory) };
    assert.ok(Number.isInteger(pod.cpu), `${machine}: whole CPUs`);
    // What Spark asks for: the template must say the same.
    const sparkMem =
      (sparkMi(conf.get('spark.executor.memory')!) + sparkMi(conf.get('spark.executor.memoryOverhead')!)) * Mi;
    assert.equal(pod.memory, sparkMem, `${machine}: template memory = executor memory + overhead`);
    assert.equal(`${pod.cpu}`, conf.get('spark.kubernetes.executor.request.cores'));
    const n = Number(conf.get('spark.executor.instances'));
    const placed = admit(
      k,
      m,
      Array.from({ length: n }, () => pod),
    );
    assert.ok(Array.isArray(placed), `${machine}: ${placed}`);
    assert.equal(new Set(placed).size, n, `${machine}: one executor per NUMA node`);
    rows.push(`${machine}: ${n} x (${pod.cpu} CPUs, ${pod.memory / Mi}Mi) on nodes ${placed.join(',')}`);
  }
  // The lab machines' nodes are too small for any executor (refused above); the others all admit.
  assert.deepEqual(
    rows.map((r) => r.split(':')[0]),
    ['cxl-3node', 'epyc-nps4', 'spark-2s', 'vm-flat-32'],
    rows.join('\n'),
  );
});

test('the arithmetic refuses what the kubelet refuses (so the test above can fail)', async () => {
  const { m, k, template } = await planOf('spark-2s');
  const res = template.spec.containers[0]!.resources.requests;
  const pod: Pod = { cpu: Number(res.cpu), memory: bytes(res.memory) };
  // One more pod than there are nodes: the third finds no node with room.
  assert.match(String(admit(k, m, [pod, pod, pod])), /pod 3: (TopologyAffinityError|over the node's allocatable)/);
  // A pod 1 Mi larger than MemTotal - reservedMemory of a node.
  const node0 = m.usable[0]!;
  const over = node0.memBytes - bytes(k.reservedMemory[0]!.limits.memory) + Mi;
  assert.match(String(admit(k, m, [{ cpu: pod.cpu, memory: over }])), /TopologyAffinityError/);
  // An odd CPU count on an SMT machine.
  assert.match(String(admit(k, m, [{ cpu: 3, memory: Mi }])), /SMTAlignmentError/);
  // reservedMemory that does not add up: the Memory Manager does not start.
  assert.throws(() => admit({ ...k, systemReserved: { memory: '1Gi' } }, m, [pod]), /sum\(reservedMemory\)/);
});
