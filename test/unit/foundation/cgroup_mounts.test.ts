// cgroups wherever they are mounted (issue 25): /proc/self/mountinfo says where the v2 hierarchy,
// the v1 cpuset and memory hierarchies and the legacy cpuset filesystem are, and the allowed CPUs
// and memory nodes (topo, run, plan, the agent: readCgroupAllowed), the memory limit (plan) and the
// agent's cgroup files are read there. One fake machine tree per layout; without a mountinfo the
// systemd layout is assumed, as before.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { readCgroupAllowed } from '../../../src/sysfs/cgroup_cpuset.ts';
import { readCgroupMemoryLimit } from '../../../src/sysfs/cgroup_memory_max.ts';
import { cgroupDir, parseCgroupMounts } from '../../../src/sysfs/cgroup_mounts.ts';
import { cgroupFile, hasCgroupV2 } from '../../../src/sysfs/cgroup_v2.ts';
import { readCgroupCpuset } from '../../../src/sysfs/cgroup_cpuset.ts';
import { openRoot } from '../../../src/sysfs/root.ts';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function tree(files: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'numakit-cgmounts-'));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return openRoot(dir);
}

const line = (id: number, root: string, point: string, fstype: string, superOpts: string) =>
  `${id} 1 0:${id} ${root} ${point} rw,nosuid,nodev,noexec,relatime shared:${id} - ${fstype} ${fstype} ${superOpts}\n`;
const BASE = line(21, '/', '/sys', 'sysfs', 'rw') + line(22, '/', '/proc', 'proc', 'rw');

describe('cgroup mounts from mountinfo', () => {
  it('finds each hierarchy, the first mount of each, with its root and prefix style', () => {
    const systemd = parseCgroupMounts(BASE + line(30, '/', '/sys/fs/cgroup', 'cgroup2', 'rw,nsdelegate'));
    assert.deepEqual(systemd.v2, { dir: 'sys/fs/cgroup', root: '/', noprefix: false });
    assert.equal(systemd.cpuset, null);
    const hybrid = parseCgroupMounts(
      BASE +
        line(30, '/', '/sys/fs/cgroup/unified', 'cgroup2', 'rw') +
        line(31, '/', '/sys/fs/cgroup/cpuset,cpu', 'cgroup', 'rw,cpuset,cpu') +
        line(32, '/', '/sys/fs/cgroup/memory', 'cgroup', 'rw,memory') +
        line(33, '/', '/mnt/other', 'cgroup2', 'rw'),
    );
    assert.equal(hybrid.v2?.dir, 'sys/fs/cgroup/unified');
    assert.equal(hybrid.cpuset?.dir, 'sys/fs/cgroup/cpuset,cpu');
    assert.equal(hybrid.memory?.dir, 'sys/fs/cgroup/memory');
    const legacy = parseCgroupMounts(BASE + line(40, '/', '/dev/cpuset', 'cpuset', 'rw'));
    assert.deepEqual(legacy.cpuset, { dir: 'dev/cpuset', root: '/', noprefix: true });
    const noprefix = parseCgroupMounts(BASE + line(41, '/', '/cgroup/cpuset', 'cgroup', 'rw,cpuset,noprefix'));
    assert.equal(noprefix.cpuset?.noprefix, true);
    const escaped = parseCgroupMounts(line(42, '/docker/abc', '/run/my\\040cg', 'cgroup2', 'rw'));
    assert.deepEqual(escaped.v2, { dir: 'run/my cg', root: '/docker/abc', noprefix: false });
    assert.throws(() => parseCgroupMounts('1 2 3\n'), /not a mountinfo line/);
  });

  it('places a cgroup inside a mount, and refuses one outside the mounted subtree', () => {
    const m = { dir: 'sys/fs/cgroup', root: '/docker/abc', noprefix: false };
    assert.equal(cgroupDir(m, '/docker/abc'), 'sys/fs/cgroup');
    assert.equal(cgroupDir(m, '/docker/abc/x'), 'sys/fs/cgroup/x');
    assert.equal(cgroupDir(m, '/docker'), null);
    assert.equal(cgroupDir(m, '/docker/abcd'), null);
    assert.equal(cgroupDir({ dir: 'opt/cg', root: '/', noprefix: false }, '/'), 'opt/cg');
  });
});

describe('allowed CPUs, memory nodes and limits in each layout', () => {
  it('cgroup2 mounted elsewhere (an HPC node: /opt/slurm/cgroup): cpuset, mems, memory.max, the agent files', () => {
    const root = tree({
      'proc/self/mountinfo': BASE + line(30, '/', '/opt/slurm/cgroup', 'cgroup2', 'rw'),
      'proc/self/cgroup': '0::/job_7/step_0\n',
      'proc/4242/cgroup': '0::/job_7/step_0\n',
      'opt/slurm/cgroup/cgroup.controllers': 'cpuset cpu memory\n',
      'opt/slurm/cgroup/job_7/cpuset.cpus.effective': '2-3\n',
      'opt/slurm/cgroup/job_7/step_0/cpuset.cpus.effective': '2-3\n',
      'opt/slurm/cgroup/job_7/step_0/cpuset.mems.effective': '1\n',
      'opt/slurm/cgroup/job_7/memory.max': '1073741824\n',
      'opt/slurm/cgroup/job_7/step_0/memory.max': 'max\n',
      // What the old fixed path would have found: not this process's cgroup.
      'sys/fs/cgroup/cpuset.cpus.effective': '0-7\n',
    });
    assert.deepEqual(readCgroupAllowed(root, 'self', 'cpus'), {
      cgroup: '/job_7/step_0',
      path: 'opt/slurm/cgroup/job_7/step_0/cpuset.cpus.effective',
      ids: [2, 3],
    });
    assert.deepEqual(readCgroupAllowed(root, 'self', 'mems')?.ids, [1]);
    assert.deepEqual(readCgroupCpuset(root, 4242), { cgroup: '/job_7/step_0', cpus: [2, 3] });
    assert.deepEqual(readCgroupMemoryLimit(root, 'self'), {
      cgroup: '/job_7',
      path: 'opt/slurm/cgroup/job_7/memory.max',
      bytes: 1 << 30,
    });
    assert.equal(cgroupFile(root, '/job_7', 'memory.current'), 'opt/slurm/cgroup/job_7/memory.current');
    assert.equal(hasCgroupV2(root), true);
  });

  it('v1 cpuset hierarchy at /cgroup/cpuset (RHEL 6), memory at /cgroup/memory', () => {
    const root = tree({
      'proc/self/mountinfo':
        BASE +
        line(30, '/', '/cgroup/cpuset', 'cgroup', 'rw,cpuset') +
        line(31, '/', '/cgroup/memory', 'cgroup', 'rw,memory'),
      'proc/self/cgroup': '3:cpuset:/slurm/uid_1/job_2\n2:memory:/slurm/uid_1/job_2\n',
      'cgroup/cpuset/slurm/uid_1/job_2/cpuset.effective_cpus': '4-5\n',
      'cgroup/memory/slurm/uid_1/job_2/memory.limit_in_bytes': '2147483648\n',
    });
    assert.deepEqual(
      readCgroupAllowed(root, 'self', 'cpus')?.path,
      'cgroup/cpuset/slurm/uid_1/job_2/cpuset.effective_cpus',
    );
    assert.deepEqual(readCgroupAllowed(root, 'self', 'cpus')?.ids, [4, 5]);
    assert.equal(readCgroupMemoryLimit(root, 'self')?.bytes, 2 * 2 ** 30);
    assert.equal(hasCgroupV2(root), false);
  });

  it('the legacy cpuset filesystem (mount -t cpuset none /dev/cpuset): files without the cpuset. prefix', () => {
    const root = tree({
      'proc/self/mountinfo': BASE + line(40, '/', '/dev/cpuset', 'cpuset', 'rw'),
      'proc/self/cgroup': '1:cpuset:/batch\n',
      'dev/cpuset/batch/cpus': '0-1\n',
      'dev/cpuset/batch/mems': '0\n',
    });
    assert.deepEqual(readCgroupAllowed(root, 'self', 'cpus'), {
      cgroup: '/batch',
      path: 'dev/cpuset/batch/cpus',
      ids: [0, 1],
    });
    assert.deepEqual(readCgroupAllowed(root, 'self', 'mems')?.ids, [0]);
  });

  it("a container's bind mount of its own subtree (no cgroup namespace): its cgroup is the mount's root", () => {
    const root = tree({
      'proc/self/mountinfo': BASE + line(30, '/docker/abc', '/sys/fs/cgroup', 'cgroup2', 'rw'),
      'proc/self/cgroup': '0::/docker/abc\n',
      'sys/fs/cgroup/cpuset.cpus.effective': '6-7\n',
    });
    assert.deepEqual(readCgroupAllowed(root, 'self', 'cpus'), {
      cgroup: '/docker/abc',
      path: 'sys/fs/cgroup/cpuset.cpus.effective',
      ids: [6, 7],
    });
  });

  it('without a mountinfo (a snapshot, a fixture) the systemd layout, as before', () => {
    const root = tree({ 'proc/self/cgroup': '0::/\n', 'sys/fs/cgroup/cpuset.cpus.effective': '0-3\n' });
    assert.deepEqual(readCgroupAllowed(root, 'self', 'cpus')?.path, 'sys/fs/cgroup/cpuset.cpus.effective');
  });
});
