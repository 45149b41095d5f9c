// `run --cpunodebind` inside a cpuset (a container limited to some CPUs): it binds to the node's
// CPUs this process may use (Cpus_allowed_list of its status), and refuses a node with none of
// them in one line naming the node, its CPUs, the allowed CPUs and the cgroup's cpuset, before
// any system call (numactl leaves it to the kernel: "sched_setaffinity: Invalid argument").
// A fake root stands in for /sys and /proc; the native calls are recorded, not made.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { applyBinding, readSystem } from '../../../src/actuate/run_binding.js';
import { SpecError } from '../../../src/policy/nodespec.js';
import { openRoot } from '../../../src/sysfs/root.js';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Two nodes of four CPUs; this process allowed `allowed`, its cgroup's cpuset `cpuset` (null: no cgroup file). */
function machine(allowed: string, cpuset: string | null) {
  const dir = mkdtempSync(join(tmpdir(), 'numakit-cpuset-run-'));
  dirs.push(dir);
  const files: Record<string, string> = {
    'sys/devices/system/node/online': '0-1\n',
    'sys/devices/system/node/has_memory': '0-1\n',
    'sys/devices/system/node/node0/cpulist': '0-3\n',
    'sys/devices/system/node/node1/cpulist': '4-7\n',
    'sys/devices/system/cpu/present': '0-7\n',
    [`proc/${process.pid}/status`]: `Name:\tnode\nState:\tR (running)\nThreads:\t1\nCpus_allowed_list:\t${allowed}\nMems_allowed_list:\t0-1\n`,
  };
  if (cpuset !== null) {
    files['proc/self/cgroup'] = '0::/\n';
    files['sys/fs/cgroup/cpuset.cpus.effective'] = `${cpuset}\n`;
  }
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return openRoot(dir);
}

type Native = Parameters<typeof applyBinding>[0];
class NativeError extends Error {
  constructor(readonly code: string) {
    super(`sched_setaffinity: ${code}`);
  }
}

/** The CPUs `run --cpunodebind SPEC [--all]` would bind to; `refuse` makes the kernel say EINVAL. */
function bind(
  root: ReturnType<typeof openRoot>,
  spec: string,
  opts: { all?: boolean; refuse?: boolean } = {},
): number[] {
  let set: number[] = [];
  const native = {
    NativeError,
    setAffinity: (_pid: number, cpus: number[]) => {
      if (opts.refuse) throw new NativeError('EINVAL');
      set = cpus;
    },
  } as unknown as Native;
  applyBinding(
    native,
    { cpus: { kind: 'cpunodebind', spec }, all: opts.all ?? false, balancing: false },
    { sys: readSystem(root), root, note: () => {} },
  );
  return set;
}

describe('run --cpunodebind within the allowed CPUs', () => {
  it("binds to the intersection of the nodes' CPUs and Cpus_allowed_list", () => {
    const root = machine('0-5', '0-5');
    assert.deepEqual(bind(root, '1'), [4, 5]);
    assert.deepEqual(bind(root, '0'), [0, 1, 2, 3]);
    assert.deepEqual(bind(root, '0-1'), [0, 1, 2, 3, 4, 5]);
  });

  it("with nothing restricting it, a node's CPUs are all of them", () => {
    assert.deepEqual(bind(machine('0-7', null), '1'), [4, 5, 6, 7]);
  });

  it('refuses a node none of whose CPUs is allowed, in one line naming the node, its CPUs and the cpuset', () => {
    const root = machine('0-3', '0-3');
    assert.throws(
      () => bind(root, '1'),
      (e: unknown) => {
        assert.ok(e instanceof SpecError);
        assert.equal(e.exitCode, 1);
        assert.equal(
          e.message,
          "--cpunodebind 1: none of node 1's CPUs (4-7) is allowed to this process (Cpus_allowed_list 0-3; cgroup /'s cpuset allows 0-3 (/sys/fs/cgroup/cpuset.cpus.effective))",
        );
        return true;
      },
    );
  });

  it("says --all would bind when only this process's affinity (taskset), not the cpuset, leaves the node out", () => {
    const root = machine('0-3', '0-7');
    assert.throws(
      () => bind(root, '1'),
      /Cpus_allowed_list 0-3; cgroup \/'s cpuset allows 0-7 .*; --all binds outside this affinity$/,
    );
    assert.deepEqual(bind(root, '1', { all: true }), [4, 5, 6, 7]);
  });

  it('without a cgroup file the message names Cpus_allowed_list alone', () => {
    assert.throws(() => bind(machine('0-3', null), '1'), {
      message: "--cpunodebind 1: none of node 1's CPUs (4-7) is allowed to this process (Cpus_allowed_list 0-3)",
    });
  });

  it("--all outside the cgroup's cpuset: the kernel's EINVAL becomes a line naming the cpuset", () => {
    const root = machine('0-3', '0-3');
    assert.throws(() => bind(root, '1', { all: true, refuse: true }), {
      name: 'SpecError',
      message:
        "CPUs 4-7 are all outside cgroup /'s cpuset (0-3, /sys/fs/cgroup/cpuset.cpus.effective): the kernel refused them (sched_setaffinity: Invalid argument)",
    });
    // Overlapping the cpuset, EINVAL is not the cpuset's doing: the native error is kept.
    assert.throws(() => bind(root, '0-1', { all: true, refuse: true }), NativeError);
  });
});
