// `numakit stat --cgroup [PATH]` on cgroup v2 and v1 trees (test/fixtures/cgroup), and the pure
// parts: memory.numa_stat of both versions, Kubernetes names from cgroup paths, the rank.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { kubeLabels } from '../../../src/model/cgroup_numa.js';
import { numaStatV1, numaStatV2, parseNumaStatV1 } from '../../../src/sysfs/cgroup_numa_stat.js';
import { openRoot } from '../../../src/sysfs/root.js';
import { CONTAINER, POD, writeCgroupMachine } from '../../fixtures/cgroup/machine.js';
import { runCommand } from '../../helpers/cli.js';
import stat from '../../../src/cli/commands/stat.js';

const dir = mkdtempSync(join(tmpdir(), 'numakit-cgroup-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const roots = Object.fromEntries(
  ([1, 2] as const).map((v) => {
    writeCgroupMachine(join(dir, `v${v}`), v);
    return [v, openRoot(join(dir, `v${v}`))];
  }),
);
const MiB = 2 ** 20;

test('memory.numa_stat v2: bytes per node, anon + file', () => {
  const m = numaStatV2('anon N0=4096 N1=8192\nfile N0=0 N1=4096\nshmem N0=0 N1=0\n');
  assert.deepEqual(
    [...m],
    [
      [0, { anon: 4096, file: 0, total: 4096 }],
      [1, { anon: 8192, file: 4096, total: 12288 }],
    ],
  );
});

test('memory.numa_stat v1: pages, the hierarchical lines where present', () => {
  const text =
    'total=3 N0=1 N1=2\nfile=1 N0=0 N1=1\nanon=2 N0=1 N1=1\nunevictable=0 N0=0 N1=0\n' +
    'hierarchical_total=6 N0=2 N1=4\nhierarchical_file=2 N0=0 N1=2\nhierarchical_anon=3 N0=1 N1=2\nhierarchical_unevictable=1 N0=1 N1=0\n';
  assert.deepEqual(
    [...numaStatV1(text, 4096)],
    [
      [0, { anon: 4096, file: 0, total: 8192 }],
      [1, { anon: 8192, file: 8192, total: 16384 }],
    ],
  );
  assert.deepEqual(numaStatV1('total=1 N0=1\nfile=0 N0=0\nanon=1 N0=1\n', 4096).get(0), {
    anon: 4096,
    file: 0,
    total: 4096,
  });
  assert.throws(() => parseNumaStatV1('total 1 N0=1\n'), /TYPE=PAGES/);
  assert.throws(() => parseNumaStatV1('total=1 N0=x\n'), /N0=PAGES/);
});

test('Kubernetes names from cgroup paths: systemd and cgroupfs drivers, each QoS class', () => {
  const id = 'cri-containerd-0123456789abcdef0123456789abcdef.scope';
  const cases: [string, ReturnType<typeof kubeLabels>][] = [
    [
      `/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${POD.replace(/-/g, '_')}.slice/${id}`,
      { qos: 'burstable', pod: POD, container: '0123456789ab' },
    ],
    [`/kubepods.slice/kubepods-pod${POD.replace(/-/g, '_')}.slice`, { qos: 'guaranteed', pod: POD, container: '' }],
    [`/kubepods/besteffort/pod${POD}/${CONTAINER}`, { qos: 'besteffort', pod: POD, container: CONTAINER.slice(0, 12) }],
    ['/system.slice/kubelet.service', null],
    ['/kubepods.slice', null],
  ];
  for (const [path, want] of cases) assert.deepEqual(kubeLabels(path), want, path);
});

describe('stat --cgroup', () => {
  for (const v of [1, 2] as const) {
    test(`v${v}: every cgroup with processes, most remote memory first, numa_stat and cpuset of each`, async () => {
      const r = await runCommand(stat, roots[v]!, ['--cgroup', '--json']);
      assert.equal(r.code, 0, r.err);
      const j = JSON.parse(r.out) as {
        cgroups: {
          path: string;
          version: number;
          remoteBytes: number;
          mems: number[];
          numaStat: Record<string, { total: number }>;
          kubernetes: unknown;
          processes: { pid: number }[];
        }[];
      };
      const paths = j.cgroups.map((c) => c.path);
      assert.match(paths[0]!, v === 2 ? /^\/kubepods\.slice\/.*cri-containerd-/ : /^\/kubepods\/pod/);
      assert.deepEqual(paths.slice(1, 3), ['/system.slice/spread-app.service', '/system.slice/local-app.service']);
      const remotes = j.cgroups.map((c) => c.remoteBytes);
      assert.deepEqual(
        remotes,
        [...remotes].sort((a, b) => b - a),
      );
      const pod = j.cgroups[0]!;
      assert.equal(pod.version, v);
      assert.deepEqual(
        pod.processes.map((p) => p.pid),
        [147],
      );
      assert.equal(pod.numaStat['1']!.total, 120 * MiB);
      assert.deepEqual(pod.kubernetes, {
        qos: v === 2 ? 'burstable' : 'guaranteed',
        pod: POD,
        container: CONTAINER.slice(0, 12),
      });
      assert.deepEqual(j.cgroups[2]!.mems, [0]);
    });
    test(`v${v}: one cgroup PATH in full`, async () => {
      const r = await runCommand(stat, roots[v]!, ['--cgroup', '/system.slice/local-app.service']);
      assert.equal(r.code, 0, r.err);
      assert.match(
        r.out,
        new RegExp(
          `^cgroup /system.slice/local-app.service \\(v${v}\\)\\n  CPUs allowed: 0-1; memory nodes allowed: 0\\n`,
        ),
      );
      assert.match(r.out, /node 0: 92MiB \(anon 90MiB, file 2MiB\)/);
      assert.match(r.out, /148 {2}local-app/);
    });
  }
  test('text: the table, cgroup last', async () => {
    const r = await runCommand(stat, roots[2]!, ['--cgroup', '--top', '2']);
    const lines = r.out.trim().split('\n');
    assert.match(lines[0]!, /^PROCS +MEMORY +REMOTE +LOCALITY +CPUS +MEMS +PER NODE \(numa_stat\) +CGROUP$/);
    assert.match(lines[1]!, /119\.6MiB +0\.15 +0-1 +0-1 +0:21MiB 1:120MiB +\/kubepods\.slice/);
    assert.equal(lines.at(-1), '(3 more cgroups; --top N shows more)');
  });
  test('a PATH that is no cgroup, one without a slash, and --cgroup with --procs: one-line errors', async () => {
    const none = await runCommand(stat, roots[2]!, ['--cgroup', '/nope']);
    assert.deepEqual(
      [none.code, none.err],
      [1, 'numakit: stat: cgroup /nope: no such cgroup (no memory.numa_stat or cpuset files, no process in it)\n'],
    );
    const bare = await runCommand(stat, roots[2]!, ['--cgroup', 'nope']);
    assert.equal(bare.code, 2);
    assert.match(bare.err, /a cgroup path starts with \//);
    const both = await runCommand(stat, roots[2]!, ['--cgroup', '--procs']);
    assert.equal(both.code, 2);
    assert.match(both.err, /--cgroup and --procs cannot be used together/);
  });
});
