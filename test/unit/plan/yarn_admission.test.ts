// spark-yarn's files as YARN and Spark read them: an application of spark.executor.instances
// executors and its ApplicationMaster, every container rounded up by the scheduler to a
// multiple of yarn.scheduler.minimum-allocation-mb, must all be given containers by the one
// NodeManager of a one-host cluster, and with NUMA awareness each container on one node
// (the NodeManager's NumaResourceAllocator: the first node, round robin, with the memory and
// vcores left). This reimplements those rules on the rendered yarn-site.numakit.xml and
// spark-defaults.conf, not on the planner's numbers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { planWorkload } from '../../../src/policy/plan/index.js';
import { renderPlan } from '../../../src/render/plan/index.js';
import { exampleMachine, exampleNames } from './machines.js';

const props = (xml: string) =>
  new Map([...xml.matchAll(/<name>([^<]+)<\/name>\s*<value>([^<]*)<\/value>/g)].map((m) => [m[1]!, m[2]!]));
const conf = (text: string) =>
  new Map(
    text
      .split('\n')
      .filter((l) => l.trim() !== '' && !l.startsWith('#'))
      .map((l) => {
        const [k, ...v] = l.trim().split(/\s+/);
        return [k!, v.join(' ')] as const;
      }),
  );
const mb = (v: string) => {
  const m = /^(\d+)([mg])$/.exec(v);
  assert.ok(m, `a Spark size: ${v}`);
  return Number(m[1]) * (m[2] === 'g' ? 1024 : 1);
};
/** Spark's request for a JVM: heap + overhead (when not given: max(10%, 384 MiB)). */
const request = (c: Map<string, string>, heapKey: string, overKey: string, dflt: string) => {
  const heap = mb(c.get(heapKey) ?? dflt);
  return heap + (c.has(overKey) ? mb(c.get(overKey)!) : Math.max(Math.floor(heap * 0.1), 384));
};
const normalize = (req: number, min: number) => Math.max(1, Math.ceil(req / min)) * min;

interface Container {
  what: string;
  memory: number;
  vcores: number;
}

/** The containers of the application as Spark asks for them and the scheduler rounds them. */
function containers(c: Map<string, string>, min: number): Container[] {
  const cluster = c.get('spark.submit.deployMode') === 'cluster';
  const am = cluster
    ? request(c, 'spark.driver.memory', 'spark.driver.memoryOverhead', '1g')
    : request(c, 'spark.yarn.am.memory', 'spark.yarn.am.memoryOverhead', '512m');
  const amCores = Number(c.get(cluster ? 'spark.driver.cores' : 'spark.yarn.am.cores') ?? '1');
  const exec = request(c, 'spark.executor.memory', 'spark.executor.memoryOverhead', '1g');
  const n = Number(c.get('spark.executor.instances'));
  return [
    { what: 'ApplicationMaster', memory: normalize(am, min), vcores: amCores },
    ...Array.from({ length: n }, (_, i) => ({
      what: `executor ${i + 1}`,
      memory: normalize(exec, min),
      vcores: Number(c.get('spark.executor.cores')),
    })),
  ];
}

/** Gives each container its room, or says which one found none. */
function admit(p: Map<string, string>, cs: Container[]): string | null {
  let memory = Number(p.get('yarn.nodemanager.resource.memory-mb'));
  let vcores = Number(p.get('yarn.nodemanager.resource.cpu-vcores'));
  const numa = p.get('yarn.nodemanager.numa-awareness.enabled') === 'true';
  const nodes = numa
    ? (p.get('yarn.nodemanager.numa-awareness.node-ids') ?? '').split(',').map((id) => ({
        id,
        memory: Number(p.get(`yarn.nodemanager.numa-awareness.${id}.memory`)),
        vcores: Number(p.get(`yarn.nodemanager.numa-awareness.${id}.cpus`)),
      }))
    : [];
  let next = 0;
  for (const c of cs) {
    if (c.memory > memory || c.vcores > vcores)
      return `${c.what} (${c.memory} MB, ${c.vcores} vcores): the NodeManager has ${memory} MB, ${vcores} vcores left`;
    memory -= c.memory;
    vcores -= c.vcores;
    if (!numa) continue;
    const k = nodes.findIndex((_, i) => {
      const x = nodes[(next + i) % nodes.length]!;
      return x.memory >= c.memory && x.vcores >= c.vcores;
    });
    if (k < 0) return `${c.what} (${c.memory} MB): no NUMA node has room`;
    const x = nodes[(next + k) % nodes.length]!;
    x.memory -= c.memory;
    x.vcores -= c.vcores;
    next = (next + k + 1) % nodes.length;
  }
  return null;
}

async function files(machine: string, raw: Record<string, string>) {
  const fs = await renderPlan(planWorkload('spark-yarn', exampleMachine(machine), raw));
  const get = (suffix: string) => fs.find((f) => f.path.endsWith(suffix))!.content;
  return { p: props(get('yarn-site.numakit.xml')), c: conf(get('spark-defaults.conf')), md: get('PLAN.md') };
}

test('every executor and the ApplicationMaster get a container, in client and cluster mode, at any minimum allocation', async () => {
  for (const machine of exampleNames())
    for (const mode of ['client', 'cluster'])
      for (const min of [1024, 512, 1536, 2048]) {
        let f: Awaited<ReturnType<typeof files>>;
        try {
          f = await files(machine, { 'deploy-mode': mode, 'min-allocation': `${min}` });
        } catch (e) {
          // A machine too small for any executor is refused with its numbers (small_nodes.test.ts).
          assert.match(String(e), /the smallest executor needs/, machine);
          continue;
        }
        const why = admit(f.p, containers(f.c, min));
        assert.equal(why, null, `${machine} ${mode} min ${min}: ${why}`);
      }
});

test("the default plan's files leave room for the AM (spark-2s: 2 executors of 84992 MB + 1024 MB)", async () => {
  const f = await files('spark-2s', {});
  assert.equal(admit(f.p, containers(f.c, 1024)), null);
  assert.equal(f.p.get('yarn.nodemanager.resource.memory-mb'), `${2 * 84992 + 1024}`);
  assert.match(
    f.md,
    /\| yarn\.nodemanager\.resource\.memory-mb \| 84992 x 2 executors \+ 1024 \(ApplicationMaster\) = 171008 \|/,
  );
  // A NodeManager sized for the executors alone starves the AM: the check sees it.
  const tight = new Map(f.p).set('yarn.nodemanager.resource.memory-mb', `${2 * 84992}`);
  assert.match(admit(tight, containers(f.c, 1024)) ?? '', /executor 2 .* has 83968 MB/);
});

test('cluster mode: the driver is the AM (spark.driver.memory 2g + 384m -> 3072 MB at 1024)', async () => {
  const f = await files('spark-2s', { 'deploy-mode': 'cluster', 'am-memory': '2g' });
  assert.equal(f.c.get('spark.driver.memory'), '2048m');
  assert.equal(f.c.get('spark.submit.deployMode'), 'cluster');
  assert.equal(containers(f.c, 1024)[0]!.memory, 3072);
  assert.equal(admit(f.p, containers(f.c, 1024)), null);
  assert.match(f.md, /ApplicationMaster container \(cluster mode\) \| spark\.driver\.memory 2048 MB/);
});

test('--deploy-mode and --am-memory refuse what Spark would not take', () => {
  const m = exampleMachine('spark-2s');
  assert.throws(() => planWorkload('spark-yarn', m, { 'deploy-mode': 'local' }), /--deploy-mode: 'local' refused/);
  assert.throws(() => planWorkload('spark-yarn', m, { 'am-memory': '100k' }), /--am-memory '100k': expected whole MiB/);
  assert.throws(() => planWorkload('spark-yarn', m, { 'min-allocation': '0' }), /--min-allocation: 0 is out of range/);
});
