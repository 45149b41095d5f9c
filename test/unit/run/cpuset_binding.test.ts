// `run --cpunodebind` inside a cpuset (a container limited to some CPUs) and after a taskset: like
// numactl it asks for every CPU of the nodes (the kernel keeps the affinity inside the cgroup's
// cpuset; the caller's current affinity does not bound it), and refuses a node none of whose CPUs
// the cpuset allows in one line naming the node, its CPUs and the cpuset, before any system call
// (numactl leaves it to the kernel: "sched_setaffinity: Invalid argument"). --physcpubind stays
// bounded by the current affinity unless --all, as numactl's numa_parse_cpustring is.
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
  return bindAs(root, 'cpunodebind', spec, opts);
}

function physBind(root: ReturnType<typeof openRoot>, spec: string, opts: { all?: boolean; refuse?: boolean } = {}) {
  return bindAs(root, 'physcpubind', spec, opts);
}

function bindAs(
  root: ReturnType<typeof openRoot>,
  kind: 'cpunodebind' | 'physcpubind',
  spec: string,
  opts: { all?: boolean; refuse?: boolean },
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
    { cpus: { kind, spec }, all: opts.all ?? false, balancing: false },
    { sys: readSystem(root), root, note: () => {} },
  );
  return set;
}

describe("run --cpunodebind: the node's CPUs, bounded by the cgroup's cpuset, not by the current affinity", () => {
  it("binds to all of the nodes' CPUs, leaving the cpuset's bound to the kernel (numactl's numa_run_on_node_mask)", () => {
    const root = machine('0-5', '0-5');
    assert.deepEqual(bind(root, '1'), [4, 5, 6, 7]);
    assert.deepEqual(bind(root, '0'), [0, 1, 2, 3]);
    assert.deepEqual(bind(root, '0-1'), [0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it("with nothing restricting it, a node's CPUs are all of them", () => {
    assert.deepEqual(bind(machine('0-7', null), '1'), [4, 5, 6, 7]);
  });

  it('after a taskset to node 0 (Cpus_allowed_list 0-3, cpuset 0-7), --cpunodebind=1 runs on node 1 as numactl does', () => {
    assert.deepEqual(bind(machine('0-3', '0-7'), '1'), [4, 5, 6, 7]);
    assert.deepEqual(bind(machine('0-3', null), '1'), [4, 5, 6, 7]);
  });

  it("refuses a node none of whose CPUs the cgroup's cpuset allows, in one line naming the node, its CPUs and the cpuset", () => {
    const root = machine('0-3', '0-3');
    for (const all of [false, true]) {
      assert.throws(
        () => bind(root, '1', { all }),
        (e: unknown) => {
          assert.ok(e instanceof SpecError);
          assert.equal(e.exitCode, 1);
          assert.equal(
            e.message,
            "--cpunodebind 1: none of node 1's CPUs (4-7) is in cgroup /'s cpuset (0-3, /sys/fs/cgroup/cpuset.cpus.effective)",
          );
          return true;
        },
      );
    }
  });

  it("--physcpubind outside the cgroup's cpuset with --all: the kernel's EINVAL becomes a line naming the cpuset", () => {
    const root = machine('0-3', '0-3');
    assert.throws(() => physBind(root, '4-7', { all: true, refuse: true }), {
      name: 'SpecError',
      message:
        "CPUs 4-7 are all outside cgroup /'s cpuset (0-3, /sys/fs/cgroup/cpuset.cpus.effective): the kernel refused them (sched_setaffinity: Invalid argument)",
    });
    // Overlapping the cpuset, EINVAL is not the cpuset's doing: the native error is kept.
    assert.throws(() => physBind(root, '0-7', { all: true, refuse: true }), NativeError);
  });

  it('--physcpubind stays bounded by the current affinity unless --all (numactl: "cpu argument N is out of range")', () => {
    const root = machine('0-3', '0-7');
    assert.throws(() => physBind(root, '4'), /cpu 4 is not allowed here \(allowed: 0-3\)/);
    assert.deepEqual(physBind(root, '4', { all: true }), [4]);
    assert.deepEqual(physBind(root, 'all'), [0, 1, 2, 3]);
  });
});
