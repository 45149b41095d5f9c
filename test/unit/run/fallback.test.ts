// `run --fallback` inside a cpuset that forbids node 1 (a container given node 0 only): the
// launch steps down (membind -> preferred -> CPU binding only -> none) with one line per step
// naming what was dropped and the cpuset that forbids it, where plain run (numactl) refuses.
// The ladder is table-tested; the binding runs against a fake /sys and /proc with the native
// calls recorded, not made.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { readSystem } from '../../../src/actuate/run_binding.js';
import { applyFallbackBinding } from '../../../src/actuate/run_fallback.js';
import type { RunArgs } from '../../../src/model/run_args.js';
import { parseRunArgs } from '../../../src/cli/commands/run_argv.js';
import { type AllowedSets, cpuFallback, memoryLadder } from '../../../src/policy/run_fallback.js';
import { openRoot } from '../../../src/sysfs/root.js';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Three nodes (0, 1 with CPUs 0-3, 4-7; 2 memory-only); the cgroup /box allows `mems` and `cpus`. */
function machine(mems: string, cpus: string) {
  const dir = mkdtempSync(join(tmpdir(), 'numakit-fallback-'));
  dirs.push(dir);
  const files: Record<string, string> = {
    'sys/devices/system/node/online': '0-2\n',
    'sys/devices/system/node/has_memory': '0-2\n',
    'sys/devices/system/node/node0/cpulist': '0-3\n',
    'sys/devices/system/node/node1/cpulist': '4-7\n',
    'sys/devices/system/node/node2/cpulist': '\n',
    'sys/devices/system/cpu/present': '0-7\n',
    [`proc/${process.pid}/status`]: `Name:\tnode\nState:\tR (running)\nThreads:\t1\nCpus_allowed_list:\t${cpus}\nMems_allowed_list:\t${mems}\n`,
    'proc/self/cgroup': '0::/box\n',
    'proc/self/mountinfo': '30 1 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n',
    'sys/fs/cgroup/box/cpuset.mems.effective': `${mems}\n`,
    'sys/fs/cgroup/box/cpuset.cpus.effective': `${cpus}\n`,
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return openRoot(dir);
}

class NativeError extends Error {
  constructor(
    readonly syscall: string,
    readonly code: string,
  ) {
    super(`${syscall}: Invalid argument (${code})`);
  }
}

/** Runs the fallback binding of `argv`; `refuse` lists policy modes the kernel says EINVAL to. */
function launch(root: ReturnType<typeof openRoot>, argv: string[], refuse: number[] = []) {
  const calls: string[] = [];
  const lines: string[] = [];
  const native = {
    NativeError,
    MPOL_LOCAL: 4,
    MPOL_F_NUMA_BALANCING: 1 << 13,
    setMempolicy: (p: { mode: number; nodes: number[] }) => {
      if (refuse.includes(p.mode)) throw new NativeError('set_mempolicy', 'EINVAL');
      calls.push(`set_mempolicy ${p.mode} ${p.nodes.join(',')}`);
    },
    setAffinity: (_pid: number, cpus: number[]) => calls.push(`sched_setaffinity ${cpus.join(',')}`),
  } as unknown as Parameters<typeof applyFallbackBinding>[0];
  const opts: RunArgs = parseRunArgs([...argv, 'true']);
  assert.equal(opts.fallback, true);
  applyFallbackBinding(native, opts, { sys: readSystem(root), root, note: (l) => lines.push(l) });
  return { calls, lines };
}

const A: AllowedSets = { mems: [0], memsFrom: 'Mems_allowed', cpus: [0, 1, 2, 3], cpusFrom: 'Cpus_allowed' };

describe('run --fallback: the ladder (pure)', () => {
  const cases: Array<[string, Parameters<typeof memoryLadder>, string[]]> = [
    [
      'a bind on allowed and forbidden nodes: preferred on the allowed one',
      ['membind', [0, 1], [0]],
      ['membind 0,1', 'preferred 0', 'none '],
    ],
    [
      'a bind on several allowed: preferred-many',
      ['membind', [0, 1, 2], [0, 2]],
      ['membind 0,1,2', 'preferred-many 0,2', 'none '],
    ],
    ['a bind on forbidden nodes only: straight to none', ['membind', [1], [0]], ['membind 1', 'none ']],
    [
      'interleave keeps interleaving over what is left',
      ['interleave', [0, 1, 2], [0, 2]],
      ['interleave 0,1,2', 'interleave 0,2', 'none '],
    ],
    ['a preference on one node: no middle rung', ['preferred', [1], [0]], ['preferred 1', 'none ']],
    [
      'everything allowed: the same steps, taken only if the kernel refuses',
      ['membind', [0], [0, 1]],
      ['membind 0', 'preferred 0', 'none '],
    ],
  ];
  for (const [name, args, want] of cases) {
    it(name, () => {
      assert.deepEqual(
        memoryLadder(...args).map((r) => `${r.kind} ${r.nodes.join(',')}`),
        want,
      );
    });
  }

  it('CPUs: all kept, the allowed part, or none, with the CPUs dropped named', () => {
    assert.deepEqual(cpuFallback('--physcpubind 0-1', [0, 1], A), { cpus: [0, 1], lines: [] });
    assert.deepEqual(cpuFallback('--physcpubind 2-5', [2, 3, 4, 5], A), {
      cpus: [2, 3],
      lines: [
        'numakit: run: --fallback: --physcpubind 2-5 -> --physcpubind 2-3: CPUs 4-5 are not in Cpus_allowed (0-3)\n',
      ],
    });
    assert.deepEqual(cpuFallback('--cpunodebind 1', [4, 5, 6, 7], A), {
      cpus: null,
      lines: ['numakit: run: --fallback: --cpunodebind 1 -> no CPU binding: CPUs 4-7 are not in Cpus_allowed (0-3)\n'],
    });
  });
});

describe('run --fallback in a cpuset that forbids node 1', () => {
  const root = machine('0,2', '0-3');
  const cg = "cgroup /box's cpuset";

  it('--membind 1 --cpunodebind 1: membind -> CPU binding only -> none, a line each, nothing set', () => {
    const r = launch(root, ['--fallback', '--membind', '1', '--cpunodebind', '1']);
    assert.deepEqual(r.lines, [
      `numakit: run: --fallback: --membind 1 -> CPU binding only: node 1 is not in ${cg} (0,2, /sys/fs/cgroup/box/cpuset.mems.effective)\n`,
      `numakit: run: --fallback: --cpunodebind 1 -> no CPU binding: CPUs 4-7 are not in ${cg} (0-3, /sys/fs/cgroup/box/cpuset.cpus.effective)\n`,
    ]);
    assert.deepEqual(r.calls, []);
  });

  it('--membind 0-1 --cpunodebind 0: membind -> preferred 0, the CPUs as asked', () => {
    const r = launch(root, ['--fallback', '--membind', '0-1', '--cpunodebind', '0']);
    assert.equal(r.lines.length, 1);
    assert.match(r.lines[0]!, /^numakit: run: --fallback: --membind 0-1 -> --preferred 0: node 1 is not in /);
    assert.deepEqual(r.calls, ['set_mempolicy 1 0', 'sched_setaffinity 0,1,2,3']);
  });

  it("a rung the kernel refuses is one more step, with the kernel's words", () => {
    const r = launch(root, ['--fallback', '--membind', '0,1,2'], [5]);
    assert.deepEqual(
      r.lines.map((l) => l.replace(/(: node|: the kernel)[\s\S]*$/, '')),
      [
        'numakit: run: --fallback: --membind 0-2 -> --preferred-many 0,2',
        'numakit: run: --fallback: --preferred-many 0,2 -> no memory policy',
      ],
    );
    assert.match(r.lines[1]!, /the kernel refused it \(set_mempolicy: Invalid argument \(EINVAL\)\)\n$/);
    assert.deepEqual(r.calls, []);
  });

  it('what the cpuset allows is set as asked, with no line', () => {
    const r = launch(root, ['--fallback', '--membind', '0', '--physcpubind', '1-2']);
    assert.deepEqual(r.lines, []);
    assert.deepEqual(r.calls, ['set_mempolicy 2 0', 'sched_setaffinity 1,2']);
  });

  it('a node that does not exist is still an error, not a step', () => {
    assert.throws(() => launch(root, ['--fallback', '--membind', '7']), /node 7|7/);
  });

  it('is off by default, and refused with --shm', () => {
    assert.equal(parseRunArgs(['--membind', '1', 'true']).fallback, undefined);
    assert.throws(
      () => parseRunArgs(['--fallback', '--shm', 'k', '--membind', '0']),
      /--fallback applies to a process/,
    );
  });
});
