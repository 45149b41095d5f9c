// The memory limit of a process's cgroup, v2 (memory.max) and v1 (memory.limit_in_bytes of the
// memory controller's hierarchy at sys/fs/cgroup/memory): parsers, and the reader on small trees
// (the smallest limit on the path counts; v1 "no limit" is none; a hybrid host's memory
// controller is v1's; in a container the hierarchy's root is the container's cgroup).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  parseMemoryLimitInBytes,
  parseMemoryMax,
  readCgroupMemoryLimit,
} from '../../../src/sysfs/cgroup_memory_max.js';
import { Warnings } from '../../../src/model/warnings.js';
import { parseProcCgroup } from '../../../src/sysfs/proc_cgroup.js';
import { openRoot } from '../../../src/sysfs/root.js';

const GiB = 1024 ** 3;
const V1_NONE = '9223372036854771712';
const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'numakit-memlimit-'));
  dirs.push(dir);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}

describe('cgroup memory limit parsers', () => {
  it('memory.max: bytes, "max" as none, anything else an error naming the text', () => {
    assert.equal(parseMemoryMax('8589934592\n'), 8 * GiB);
    assert.equal(parseMemoryMax('max\n'), null);
    assert.throws(() => parseMemoryMax('lots\n'), /not an integer/);
  });

  it('memory.limit_in_bytes: bytes; the kernel\'s "no limit" (beyond 2^53) as none; anything else an error', () => {
    for (const [text, want] of [
      ['8589934592\n', 8 * GiB],
      ['0\n', 0],
      [`${V1_NONE}\n`, null], // PAGE_COUNTER_MAX * 4096
      ['9223372036854710272\n', null], // the same on 64 KiB pages
      ['9007199254740991\n', 2 ** 53 - 1],
    ] as const)
      assert.equal(parseMemoryLimitInBytes(text), want, text);
    for (const bad of ['-1\n', 'max\n', '8G\n', '\n'])
      assert.throws(() => parseMemoryLimitInBytes(bad), /not a byte count/, bad);
  });

  it("/proc/PID/cgroup: the v1 memory controller's path, alone or with others on its line", () => {
    assert.deepEqual(parseProcCgroup('9:memory:/docker/abc\n5:cpuset:/docker/abc\n0::/\n'), {
      v2: '/',
      cpusetV1: '/docker/abc',
      memoryV1: '/docker/abc',
    });
    assert.equal(parseProcCgroup('4:memory,cpu:/a\n').memoryV1, '/a');
    assert.equal(parseProcCgroup('0::/a\n').memoryV1, null);
  });
});

describe('readCgroupMemoryLimit', () => {
  const V1 = 'sys/fs/cgroup/memory';
  const cases: [string, Record<string, string>, { cgroup: string; path: string; bytes: number } | null][] = [
    [
      'v2: the smallest memory.max on the path',
      {
        'proc/self/cgroup': '0::/batch.slice/job1\n',
        'sys/fs/cgroup/batch.slice/memory.max': `${8 * GiB}\n`,
        'sys/fs/cgroup/batch.slice/job1/memory.max': 'max\n',
      },
      { cgroup: '/batch.slice', path: 'sys/fs/cgroup/batch.slice/memory.max', bytes: 8 * GiB },
    ],
    [
      'v1: the smallest memory.limit_in_bytes on the path; "no limit" is none',
      {
        'proc/self/cgroup': '9:memory:/batch.slice/job1\n',
        [`${V1}/memory.limit_in_bytes`]: `${V1_NONE}\n`,
        [`${V1}/batch.slice/memory.limit_in_bytes`]: `${8 * GiB}\n`,
        [`${V1}/batch.slice/job1/memory.limit_in_bytes`]: `${12 * GiB}\n`,
      },
      { cgroup: '/batch.slice', path: `${V1}/batch.slice/memory.limit_in_bytes`, bytes: 8 * GiB },
    ],
    [
      'v1 with no limit anywhere: none',
      {
        'proc/self/cgroup': '9:memory:/user.slice\n',
        [`${V1}/memory.limit_in_bytes`]: `${V1_NONE}\n`,
        [`${V1}/user.slice/memory.limit_in_bytes`]: `${V1_NONE}\n`,
      },
      null,
    ],
    [
      "v1 in a container: its path is the host's, the hierarchy's root is the container's cgroup",
      {
        'proc/self/cgroup': '9:memory:/docker/abc\n',
        [`${V1}/memory.limit_in_bytes`]: `${2 * GiB}\n`,
      },
      { cgroup: '/', path: `${V1}/memory.limit_in_bytes`, bytes: 2 * GiB },
    ],
    [
      'hybrid (v2 without the memory controller, v1 memory): v1 is read, not a stray memory.max',
      {
        'proc/self/cgroup': '9:memory:/system.slice/db.service\n0::/system.slice/db.service\n',
        'sys/fs/cgroup/system.slice/db.service/memory.max': `${1 * GiB}\n`,
        [`${V1}/system.slice/db.service/memory.limit_in_bytes`]: `${4 * GiB}\n`,
      },
      {
        cgroup: '/system.slice/db.service',
        path: `${V1}/system.slice/db.service/memory.limit_in_bytes`,
        bytes: 4 * GiB,
      },
    ],
    ['no /proc/self/cgroup: unknown', {}, null],
  ];
  for (const [name, files, want] of cases) {
    it(name, () => assert.deepEqual(readCgroupMemoryLimit(openRoot(tree(files)), 'self'), want));
  }

  it('an unparseable limit file is absent with a warning naming it; the rest of the path still counts', () => {
    const warnings = new Warnings();
    const root = {
      ...openRoot(
        tree({
          'proc/self/cgroup': '9:memory:/a/b\n',
          [`${V1}/a/b/memory.limit_in_bytes`]: 'garbage\n',
          [`${V1}/a/memory.limit_in_bytes`]: `${3 * GiB}\n`,
        }),
      ),
      warnings,
    };
    assert.deepEqual(readCgroupMemoryLimit(root, 'self'), {
      cgroup: '/a',
      path: `${V1}/a/memory.limit_in_bytes`,
      bytes: 3 * GiB,
    });
    assert.deepEqual(
      warnings.list().map((w) => w.path),
      [`${V1}/a/b/memory.limit_in_bytes`],
    );
  });
});
