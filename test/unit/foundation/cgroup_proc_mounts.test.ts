// cgroups found through /proc/mounts where /proc/self/mountinfo is absent, as hwloc finds them
// (it reads /proc/mounts alone): one fixture per layout (test/fixtures/cgroup_mounts/), each laid
// over the lab-2node example (CPUs 0-3, nodes 0-1). Each fixture also holds, at the systemd
// path, a cgroup that is not this process's: assuming the systemd layout gives a wrong answer.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { readCgroupAllowed } from '../../../src/sysfs/cgroup_cpuset.js';
import { parseCgroupProcMounts } from '../../../src/sysfs/cgroup_mounts.js';
import { parseProcMounts } from '../../../src/sysfs/mountinfo.js';
import { openRoot } from '../../../src/sysfs/root.js';
import { REPO_DIR, runMain, TEST_DIR } from '../../helpers/cli.js';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** lab-2node with the layout's files over it (its proc/mounts link replaced). */
function machine(layout: string): string {
  const dir = mkdtempSync(join(tmpdir(), `numakit-${layout}-`));
  dirs.push(dir);
  cpSync(join(REPO_DIR, 'examples', 'lab-2node'), dir, { recursive: true });
  rmSync(join(dir, 'proc', 'mounts'), { force: true });
  cpSync(join(TEST_DIR, 'fixtures', 'cgroup_mounts', layout), dir, { recursive: true });
  return dir;
}

describe('/proc/mounts', () => {
  it('parses the fstab format: octal escapes, the options as one list, no mount root', () => {
    assert.deepEqual(parseProcMounts('cgroup2 /run/my\\040cg cgroup2 rw,nosuid,nsdelegate 0 0\n\n'), [
      { root: '/', point: '/run/my cg', fstype: 'cgroup2', superOptions: ['rw', 'nosuid', 'nsdelegate'] },
    ]);
    assert.throws(() => parseProcMounts('cgroup2 /x\n'), /not a \/proc\/mounts line/);
  });

  it('finds each hierarchy in it, the first mount of each', () => {
    const h = parseCgroupProcMounts(
      [
        'cgroup2 /sys/fs/cgroup/unified cgroup2 rw,nsdelegate 0 0',
        'cgroup /sys/fs/cgroup/cpuset,cpu cgroup rw,nosuid,cpuset,cpu 0 0',
        'cgroup /sys/fs/cgroup/memory cgroup rw,memory 0 0',
        'cgroup /cgroup/np cgroup rw,cpuset,noprefix 0 0',
      ].join('\n'),
    );
    assert.equal(h.from, 'mounts');
    assert.deepEqual(h.v2, { dir: 'sys/fs/cgroup/unified', root: '/', noprefix: false });
    assert.deepEqual(h.cpuset, { dir: 'sys/fs/cgroup/cpuset,cpu', root: '/', noprefix: false });
    assert.equal(h.memory?.dir, 'sys/fs/cgroup/memory');
    assert.equal(parseCgroupProcMounts('cgroup /cg cgroup rw,cpuset,noprefix 0 0\n').cpuset?.noprefix, true);
    assert.equal(parseCgroupProcMounts('none /dev/cpuset cpuset rw 0 0\n').cpuset?.noprefix, true);
  });
});

const LAYOUTS: [layout: string, cpus: number[], mems: number[], path: string][] = [
  ['legacy-cpuset', [2, 3], [1], 'dev/cpuset/batch/cpus'],
  ['v1-cpuset', [0, 2], [0], 'cgroup/cpuset/slurm/job_2/cpuset.cpus'],
  ['cgroup2-elsewhere', [1, 2], [1], 'opt/cg/job_7/cpuset.cpus.effective'],
];

describe('allowed CPUs and memory nodes with /proc/mounts and no mountinfo', () => {
  for (const [layout, cpus, mems, path] of LAYOUTS) {
    it(`${layout}: the cgroup files where /proc/mounts says, and topo marks the CPUs`, async () => {
      const dir = machine(layout);
      const root = openRoot(dir);
      assert.deepEqual(readCgroupAllowed(root, 'self', 'cpus')?.path, path);
      assert.deepEqual(readCgroupAllowed(root, 'self', 'cpus')?.ids, cpus);
      assert.deepEqual(readCgroupAllowed(root, 'self', 'mems')?.ids, mems);
      const r = await runMain(['--root', dir, 'topo', '--json']);
      assert.equal(r.code, 0, r.err);
      assert.doesNotMatch(r.err, /warning/, r.err);
      const t = JSON.parse(r.out) as { cpus: { id: number; allowed: boolean }[] };
      assert.deepEqual(
        t.cpus.filter((c) => c.allowed).map((c) => c.id),
        cpus,
      );
    });
  }
});
