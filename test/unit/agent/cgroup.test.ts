// Cgroups and the agent: a cgroup v2 leaf placed as one unit within its cpuset (--unit cgroup),
// Kubernetes Guaranteed pods pinned by the kubelet never touched (either unit), and the cgroup
// files read (memory.numa_stat, cpu.stat, cgroup.procs).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_AGENT, type AgentConfig } from '../../../src/agent/config.js';
import { AgentJournal } from '../../../src/agent/journal.js';
import { AgentPass } from '../../../src/agent/pass.js';
import { cgroupPin, isKubeGuaranteed } from '../../../src/policy/agent/cgroup_unit.js';
import { parseCpuMax, parseCpuStatUsage, parseNumaStat, parsePidList } from '../../../src/sysfs/cgroup_v2.js';
import { busy, eachWithFakeMachine, fakeClock, type FakeMachine } from './tree.js';
import { runMain } from '../../helpers/cli.js';

describe('cgroup rules', () => {
  const guaranteed: [string, boolean][] = [
    ['/kubepods.slice/kubepods-pod1234.slice/cri-containerd-abcd.scope', true],
    ['/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1234.slice/cri-containerd-abcd.scope', false],
    ['/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod1234.slice/cri-containerd-abcd.scope', false],
    ['/kubepods/pod1234/abcd', true],
    ['/kubepods/burstable/pod1234/abcd', false],
    ['/kubepods/besteffort/pod1234/abcd', false],
    ['/kubepods.slice', false],
    // kubelet --cgroup-root=/kubelet (kind, rootless): the slices carry the root's prefix
    ['/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-pod1234.slice/cri-containerd-abcd.scope', true],
    [
      '/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-burstable.slice/kubelet-kubepods-burstable-pod1234.slice/cri-containerd-abcd.scope',
      false,
    ],
    ['/kubelet/kubepods/pod1234/abcd', true],
    ['/system.slice/notkubepods.slice/x.scope', false],
    ['/system.slice/postgresql.service', false],
  ];
  for (const [path, want] of guaranteed)
    it(`${path}: ${want ? '' : 'not '}a Guaranteed pod`, () => assert.equal(isKubeGuaranteed(path), want));

  const all = { cpus: [0, 1, 2, 3], nodes: [0, 1] };
  const pod = '/kubepods.slice/kubepods-pod1.slice/cri-containerd-a.scope';
  const limit = (cpus: number | null) => ({ ...all, cpuLimit: () => cpus });
  it('a Guaranteed pod with exclusive CPUs (CPU Manager: a narrower cpuset of its whole-CPU limit) is pinned', () => {
    assert.equal(
      cgroupPin(pod, [2, 3], null, limit(2)),
      `Kubernetes Guaranteed pod with exclusive CPUs 2-3 (CPU Manager): cgroup ${pod}`,
    );
  });
  it('a Guaranteed pod with a fractional limit is in the shared pool, however narrow: not pinned', () => {
    assert.equal(cgroupPin(pod, [2, 3], null, limit(0.5)), null);
    assert.equal(cgroupPin(pod, [1, 2, 3], null, limit(1.5)), null);
  });
  it("a whole-CPU limit other than its cpuset's size is the shared pool too (CPU Manager policy none, or a pool narrowed otherwise)", () => {
    assert.equal(cgroupPin(pod, [1, 2, 3], null, limit(2)), null);
  });
  it('with no CPU limit (cpu.max "max") it cannot tell: left alone, and the line says both', () => {
    assert.equal(
      cgroupPin(pod, [2, 3], null, limit(null)),
      `Kubernetes Guaranteed pod with a cpuset narrower than the node's, CPUs 2-3: exclusive CPUs (CPU Manager) or the shared pool, which its cgroup cannot tell apart without a CPU limit in cpu.max: cgroup ${pod}`,
    );
    assert.match(cgroupPin(pod, [2, 3], null, all) ?? '', /cannot tell apart/, 'no reader: the same');
  });
  it('a shared-pool pod the Memory Manager bound to a node is still pinned, by its nodes', () => {
    assert.match(cgroupPin(pod, [2, 3], [1], limit(0.5)) ?? '', /bound to node 1 \(Memory Manager\)/);
  });
  it('a Guaranteed pod bound to one node (Memory Manager) is pinned', () =>
    assert.match(cgroupPin(pod, [0, 1, 2, 3], [1], all) ?? '', /bound to node 1 \(Memory Manager\)/));
  it('a Guaranteed pod in the shared pool (every CPU) is not', () =>
    assert.equal(cgroupPin(pod, [0, 1, 2, 3], [0, 1], all), null));
  it('a Burstable pod with a narrow cpuset is not (the kubelet did not pin it)', () =>
    assert.equal(cgroupPin('/kubepods/burstable/pod1/a', [2], null, all), null));
  it('a service with AllowedCPUs is not (it is placed within them)', () =>
    assert.equal(cgroupPin('/system.slice/db.service', [2], null, all), null));
});

describe('cgroup v2 files', () => {
  it('memory.numa_stat: bytes per node per memory type', () => {
    const s = parseNumaStat('anon N0=4096 N1=8192\nfile N0=0 N1=12288\nkernel_stack N0=16384 N1=0\n');
    assert.deepEqual(
      [...s.get('anon')!],
      [
        [0, 4096],
        [1, 8192],
      ],
    );
    assert.deepEqual(
      [...s.get('file')!],
      [
        [0, 0],
        [1, 12288],
      ],
    );
    assert.throws(() => parseNumaStat('anon N0=x'), /:1: not a "TYPE N0=BYTES ..." numa_stat line/);
  });
  it('cpu.stat usage_usec', () => {
    assert.equal(parseCpuStatUsage('usage_usec 123456\nuser_usec 100000\nsystem_usec 23456\n'), 123456);
    assert.throws(() => parseCpuStatUsage('user_usec 1\n'), /no usage_usec/);
  });
  it('cpu.max: the limit in CPUs, null for max', () => {
    assert.equal(parseCpuMax('200000 100000\n'), 2);
    assert.equal(parseCpuMax('50000 100000\n'), 0.5);
    assert.equal(parseCpuMax('max 100000\n'), null);
    assert.equal(parseCpuMax('max\n'), null);
    assert.throws(() => parseCpuMax('lots 100000\n'), /cpu.max is not "QUOTA PERIOD"/);
    assert.throws(() => parseCpuMax('100 0\n'), /period of 0/);
  });
  it('cgroup.procs', () => {
    assert.deepEqual(parsePidList('12\n345\n'), [12, 345]);
    assert.deepEqual(parsePidList(''), []);
    assert.throws(() => parsePidList('12\nabc\n'), /:2: not a pid/);
  });
});

let m: FakeMachine;
let stateDir: string;
let lines: string[];
eachWithFakeMachine((machine, dir) => {
  m = machine;
  stateDir = dir;
  lines = [];
});

async function passes(o: Partial<AgentConfig>, busyCpus: number[] = []) {
  const journal = new AgentJournal(stateDir, new Date(0));
  const pass = new AgentPass(
    { ...DEFAULT_AGENT, stateDir, ...o },
    {
      root: m.root,
      ops: m.ops,
      journal,
      log: (l) => void lines.push(l),
      selfPid: 99999,
      pageSize: 4096,
      clock: fakeClock(),
    },
  );
  await pass.run(0);
  m.tick(5, busyCpus);
  return { decisions: await pass.run(5000), journal };
}

const inCpuset = (pid: number, cpus: number[], memNode: number, cpu: number, mib: number) =>
  busy(pid, `app${pid}`, mib, memNode, cpu, { threads: [{ tid: pid, ticks: 0, cpu, start: 1000 + pid, cpus }] });

describe('--unit cgroup', () => {
  it('a leaf with two processes is placed as one, within its cpuset (CPUs 1-2), and the log names the cgroup', async () => {
    m.add(inCpuset(200, [1, 2], 3, 1, 60));
    m.add({
      ...inCpuset(201, [1, 2], 3, 1, 40),
      threads: [{ tid: 201, ticks: 0, cpu: 1, start: 1201, cpus: [1, 2], busy: 0.2 }],
    });
    m.addCgroup('/lab.slice/app.service', [200, 201], [1, 2]);
    const { decisions, journal } = await passes({ unit: 'cgroup' });
    assert.equal(decisions.length, 1, lines.join('\n'));
    const cpus = [200, 201].map((pid) => m.procs.get(pid)!.threads[0]!.cpus);
    assert.deepEqual(cpus[0], cpus[1], 'both processes bound together');
    assert.ok(cpus[0]!.length === 1 && [1, 2].includes(cpus[0]![0]!), `within the cpuset: ${cpus[0]}`);
    const node = cpus[0]![0]!; // 1 CPU a node, CPU n on node n
    assert.deepEqual([m.procs.get(200)!.pages, m.procs.get(201)!.pages], [{ [node]: 60 * 256 }, { [node]: 40 * 256 }]);
    assert.match(
      lines.join('\n'),
      new RegExp(
        `moved cgroup /lab.slice/app.service \\(pids 200,201\\): locality 0% -> 100%: threads to node ${node}, 100 MiB from node 3 to ${node}`,
      ),
    );
    assert.deepEqual(
      journal.changeSet.moves!.map((x) => [x.pid, x.cgroup, x.state]),
      [
        [200, '/lab.slice/app.service', 'done'],
        [201, '/lab.slice/app.service', 'done'],
      ],
    );
  });

  it("--exclude matches the cgroup's path; a unit under the size bar is not read past memory.current", async () => {
    m.add(inCpuset(200, [1, 2], 3, 1, 60));
    m.add(inCpuset(300, [0, 1, 2, 3], 3, 0, 8));
    m.addCgroup('/lab.slice/app.service', [200], [1, 2]);
    m.addCgroup('/lab.slice/tiny.service', [300]);
    await passes({ unit: 'cgroup', exclude: [/app\.service$/] });
    assert.deepEqual(m.calls, []);
    assert.match(lines.join('\n'), /excluded cgroup \/lab.slice\/app.service: matches --exclude/);
    assert.doesNotMatch(lines.join('\n'), /tiny/);
  });

  it('a Guaranteed pod with exclusive CPUs is never touched, even with --override-pins', async () => {
    const pod = '/kubepods.slice/kubepods-pod1.slice/cri-containerd-a.scope';
    m.add(inCpuset(200, [1], 3, 1, 60));
    m.addCgroup(pod, [200], [1], null, '100000 100000');
    await passes({ unit: 'cgroup', overridePins: true });
    assert.deepEqual(m.calls, []);
    assert.match(
      lines.join('\n'),
      new RegExp(
        `pinned-cgroup cgroup ${pod.replace(/\./g, '\\.')}: Kubernetes Guaranteed pod with exclusive CPUs 1 \\(CPU Manager\\)`,
      ),
    );
  });

  it('a process in it whose affinity someone else set makes the unit pinned (unless --override-pins)', async () => {
    m.add(inCpuset(200, [1], 3, 1, 60));
    m.addCgroup('/lab.slice/app.service', [200], [1, 2]);
    await passes({ unit: 'cgroup' });
    assert.deepEqual(m.calls, []);
    assert.match(
      lines.join('\n'),
      /pinned-cpus cgroup \/lab.slice\/app.service \(pid 200\): CPU affinity of pid 200 \(app200\) set by the user/,
    );
  });
});

describe('--unit process and cgroups', () => {
  it('a process of a Guaranteed pod pinned by the kubelet is never touched, with --override-pins too', async () => {
    const pod = '/kubepods/pod1/abc';
    m.add(inCpuset(200, [2, 3], 1, 2, 60));
    m.addCgroup(pod, [200], [2, 3], null, '200000 100000');
    await passes({ unit: 'process', overridePins: true });
    assert.deepEqual(m.calls, []);
    assert.match(
      lines.join('\n'),
      /pinned-cgroup pid 200 \(app200\): Kubernetes Guaranteed pod with exclusive CPUs 2-3 \(CPU Manager\): cgroup \/kubepods\/pod1\/abc/,
    );
  });

  it('a Guaranteed pod with a fractional CPU limit in a shared pool narrowed by others is placed within it, not called exclusive', async () => {
    const pod = '/kubepods/pod2/def';
    m.add(inCpuset(200, [2, 3], 1, 2, 60));
    m.addCgroup(pod, [200], [2, 3], null, '50000 100000');
    await passes({ unit: 'process' }, [1]);
    const cpus = m.procs.get(200)!.threads[0]!.cpus;
    assert.ok(
      m.calls.length > 0 && cpus.every((c) => c === 2 || c === 3),
      `${cpus} ${m.calls.join(' / ')}\n${lines.join('\n')}`,
    );
    assert.doesNotMatch(lines.join('\n'), /exclusive|pinned-cgroup/);
  });

  it('a Guaranteed pod with no CPU limit in cpu.max and a narrow cpuset is left alone, the line saying it cannot tell', async () => {
    m.add(inCpuset(200, [2, 3], 1, 2, 60));
    m.addCgroup('/kubepods/pod3/ghi', [200], [2, 3], null, 'max 100000');
    await passes({ unit: 'process' }, [1]);
    assert.deepEqual(m.calls, []);
    assert.match(
      lines.join('\n'),
      /pinned-cgroup pid 200 \(app200\): Kubernetes Guaranteed pod with a cpuset narrower than the node's, CPUs 2-3: exclusive CPUs \(CPU Manager\) or the shared pool, which its cgroup cannot tell apart/,
    );
  });

  it('a process of a Burstable pod with a narrow cpuset is placed within it', async () => {
    m.add(inCpuset(200, [2, 3], 1, 2, 60));
    m.addCgroup('/kubepods/burstable/pod1/abc', [200], [2, 3]);
    await passes({ unit: 'process' }, [1]);
    const cpus = m.procs.get(200)!.threads[0]!.cpus;
    assert.ok(
      cpus.every((c) => c === 2 || c === 3),
      `${cpus} ${m.calls.join(' / ')}`,
    );
    assert.ok(m.calls.length > 0, lines.join('\n'));
  });
});

describe('--unit cgroup without cgroup v2', () => {
  it('says so in one line and exits 1', async () => {
    const r = await runMain([
      '--root',
      m.dir,
      'agent',
      '--unit',
      'cgroup',
      '--advise',
      '--once',
      '--state-dir',
      stateDir,
    ]);
    assert.equal(r.code, 1, r.err);
    assert.equal(
      r.err,
      "numakit: agent --unit cgroup: no cgroup v2 hierarchy at /sys/fs/cgroup (each unit's memory per node comes from its memory.numa_stat); use --unit process\n",
    );
  });
});
