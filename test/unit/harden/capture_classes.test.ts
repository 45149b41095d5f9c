// The five classes of real-machine sysfs that broke numakit (issue 18), each on a fixture
// machine of its own (test/fixtures/harden/make.ts): every read-only command goes on.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runMain, TEST_DIR } from '../../helpers/cli.js';

const fixture = (name: string) => join(TEST_DIR, 'fixtures/harden', name);
const READ_ONLY = [['topo'], ['topo', '--json'], ['topo', '--numactl'], ['doctor'], ['stat'], ['stat', '-m'], []];

describe('capture classes: every read-only command works', () => {
  for (const name of ['trailing-nul', 'empty-attrs', 'one-bad-file', 'trimmed-cpus', 'cgroup-cpuset']) {
    for (const args of READ_ONLY) {
      it(`${name}: ${args.join(' ') || '(overview)'}`, async () => {
        const r = await runMain(['--root', fixture(name), ...args]);
        assert.ok(r.code === 0 || (args[0] === 'doctor' && r.code === 1), `exit ${r.code}: ${r.err}`);
        assert.doesNotMatch(r.err, /^numakit: (?!warning: )/m, 'only warnings on stderr');
        assert.doesNotMatch(r.out, /NaN|undefined|Infinity/);
      });
    }
  }
});

describe('1. trailing NULs, whitespace and CRLF are tolerated', () => {
  it('lists ending in "\\n\\0" and a CRLF meminfo read as if clean, without a warning', async () => {
    const r = await runMain(['--root', fixture('trailing-nul'), 'topo', '--json']);
    assert.equal(r.err, '');
    const t = JSON.parse(r.out);
    assert.deepEqual(
      t.nodes.map((n: { cpus: number[] }) => n.cpus),
      [
        [0, 1, 2, 3],
        [4, 5, 6, 7],
      ],
    );
    assert.deepEqual(
      t.nodes.map((n: { hasCpu: boolean; hasNormalMemory: boolean }) => [n.hasCpu, n.hasNormalMemory]),
      [
        [true, true],
        [true, true],
      ],
    );
    assert.equal(t.kernel.memTotalBytes, 33554432 * 1024);
    assert.deepEqual(t.warnings, []);
  });
});

describe('2. an empty attribute file means "no value"', () => {
  it('empty cpu5/online: online (as when absent); empty numa_node: node unknown; no warning', async () => {
    const r = await runMain(['--root', fixture('empty-attrs'), 'topo', '--json']);
    assert.equal(r.err, '');
    const t = JSON.parse(r.out);
    assert.equal(t.cpus.find((c: { id: number }) => c.id === 5).online, true);
    assert.equal(t.devices.find((d: { name: string }) => d.name === 'eth0').node, null);
    assert.equal(t.nodes[1].hugepages[0].free, 0);
  });
  it('doctor says an empty sysctl is empty, not broken', async () => {
    const r = await runMain(['--root', fixture('empty-attrs'), 'doctor', '--json']);
    assert.match(r.out, /proc\/sys\/kernel\/numa_balancing is empty \(no value\)/);
  });
});

describe('3. one bad file costs its fact, not the command', () => {
  it('topo: each bad file it reads is one warning line (file, line, what was expected), printed once', async () => {
    // (cpu6/online is not read: cpu/online lists every CPU's state in one file.)
    const r = await runMain(['--root', fixture('one-bad-file'), 'topo']);
    assert.equal(r.code, 0);
    const lines = r.err.trim().split('\n');
    assert.deepEqual(
      lines.sort(),
      [
        "numakit: warning: /proc/sys/vm/swappiness:1: not an integer in 0..200: '-1' (ignored)",
        "numakit: warning: /sys/devices/pci0000:00/0000:3b:00.0/numa_node:1: integer beyond 2^53: '18446744073709551616' (ignored)",
        "numakit: warning: /sys/devices/system/node/has_cpu:1: not a CPU/node list: '0-1,zz' (ignored)",
      ].sort(),
    );
    assert.match(r.out, /node 1 {2}CPUs 4-7/);
    assert.match(r.out, /unknown node[\s\S]*net eth0/, 'a numa_node of 2^64 is an unknown node, not node 2^64');
  });
  it('--json carries the same warnings', async () => {
    const r = await runMain(['--root', fixture('one-bad-file'), 'doctor', '--json']);
    const w = JSON.parse(r.out).warnings as string[];
    assert.ok(
      w.some((x) => x.startsWith('/proc/sys/vm/swappiness:1: ')),
      w.join('\n'),
    );
    assert.equal(w.length, r.err.trim().split('\n').length);
  });
  it('swappiness -1 is not judged as a value', async () => {
    const r = await runMain(['--root', fixture('one-bad-file'), 'doctor', '-v', '--json']);
    const f = JSON.parse(r.out).findings as { evidence: { path: string; value: string }[] }[];
    const ev = f.flatMap((x) => x.evidence).filter((e) => e.path === 'proc/sys/vm/swappiness');
    assert.ok(
      ev.every((e) => e.value !== '-1'),
      JSON.stringify(ev),
    );
  });
  it('stat leaves out the node whose numastat is unusable, and says so', async () => {
    const r = await runMain(['--root', fixture('one-bad-file'), 'stat']);
    assert.equal(r.code, 0);
    assert.match(r.out, /node0/);
    assert.doesNotMatch(r.out, /node1/);
    assert.match(r.err, /node1\/numastat:2: not a "name value" numastat line/);
    assert.match(r.err, /node 1 left out of the tables/);
  });
});

describe('4. a node has the CPUs of its cpulist that are present', () => {
  it('88 listed, 16 present: the 16, offline ones marked, the rest named in a warning', async () => {
    const r = await runMain(['--root', fixture('trimmed-cpus'), 'topo', '--json']);
    const t = JSON.parse(r.out);
    assert.deepEqual(
      t.nodes.map((n: { cpus: number[] }) => n.cpus),
      [
        [0, 1, 2, 3, 4, 5, 6, 7],
        [8, 9, 10, 11, 12, 13, 14, 15],
      ],
    );
    assert.equal(t.cpus.length, 16);
    assert.equal(t.cpus.find((c: { id: number }) => c.id === 7).online, false);
    assert.ok(t.warnings.includes('node 0: cpulist names 36 CPU(s) not in cpu/present (16-51): left out'), t.warnings);
    const text = await runMain(['--root', fixture('trimmed-cpus'), 'topo']);
    assert.match(text.out, /offline CPUs: 7/);
  });
});

describe('5. CPUs outside the cgroup cpuset are marked not allowed', () => {
  it('topo text names the cgroup and the CPUs it leaves out, per node', async () => {
    const r = await runMain(['--root', fixture('cgroup-cpuset'), 'topo']);
    assert.match(r.out, /node 0 .*\n {8}not allowed \(outside cgroup \/batch\.slice\/job1's cpuset\): 0-1\n/);
    assert.match(r.out, /not allowed \(outside cgroup \/batch\.slice\/job1's cpuset\): 4-5,7/);
    assert.match(
      r.out,
      /cgroup \/batch\.slice\/job1 allows CPUs 2-3,6 only \(\/sys\/fs\/cgroup\/batch\.slice\/job1\/cpuset\.cpus\.effective\)/,
    );
  });
  it('topo --json: allowed per CPU and the restriction', async () => {
    const t = JSON.parse((await runMain(['--root', fixture('cgroup-cpuset'), 'topo', '--json'])).out);
    assert.deepEqual(
      t.cpus.filter((c: { allowed: boolean }) => c.allowed).map((c: { id: number }) => c.id),
      [2, 3, 6],
    );
    assert.deepEqual(t.cpuset, {
      cgroup: '/batch.slice/job1',
      path: 'sys/fs/cgroup/batch.slice/job1/cpuset.cpus.effective',
      cpus: [2, 3, 6],
    });
  });
  it('a cgroup that allows every CPU is no restriction', async () => {
    const t = JSON.parse((await runMain(['--root', fixture('trailing-nul'), 'topo', '--json'])).out);
    assert.equal(t.cpuset, null);
    assert.ok(t.cpus.every((c: { allowed: boolean }) => c.allowed));
  });
});
