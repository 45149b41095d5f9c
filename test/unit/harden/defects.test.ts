// Each reading defect reproduced in issue 18 (hangs, crashes, missing range checks, leftovers),
// as a test of its own. A hang shows as this file timing out.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseCpuList, parseCpuMask } from '../../../src/model/cpuset.js';
import { SysfsParseError } from '../../../src/model/errors.js';
import { parseChangeFile } from '../../../src/policy/tuning/change_file.js';
import { memoryFromNumaMaps } from '../../../src/discover/processes.js';
import { listNodeDirs } from '../../../src/sysfs/node_list.js';
import { parseInteger } from '../../../src/sysfs/parse_util.js';
import { openRoot } from '../../../src/sysfs/root.js';
import { runMain } from '../../helpers/cli.js';
import { put, scratchCopy } from './tree.js';

const NODE = 'sys/devices/system/node';

describe('hangs', () => {
  for (const list of [
    '9007199254740993',
    '0-9007199254740993',
    '18446744073709551615',
    '0-1048576',
    '8192',
    '0-99999999',
  ]) {
    it(`a list with ${list} is refused, not walked`, () => assert.throws(() => parseCpuList(list), SysfsParseError));
  }
  it('a node list is bounded by MAX_NUMNODES: "1024" is not a node', () => {
    const dir = scratchCopy('spark-2s', (d) => put(d, `${NODE}/possible`, '0-1024\n'));
    return runMain(['--root', dir, 'topo', '--json']).then((r) => {
      assert.equal(r.code, 0);
      assert.match(r.err, /possible:1: id beyond the kernel's limit \(1024\)/);
    });
  });
  it('a mask wider than 8192 bits is refused', () =>
    assert.throws(() => parseCpuMask(Array(300).fill('ffffffff').join(',')), SysfsParseError));
  it('numa_maps N4294967294=1 is a parse error, not a walk over a sparse array', () => {
    assert.throws(
      () => memoryFromNumaMaps('7f00 default anon=1 N4294967294=1 kernelpagesize_kB=4\n'),
      /node id beyond/,
    );
    assert.throws(
      () => memoryFromNumaMaps('7f00 default anon=1 N0=99999999999999999999 kernelpagesize_kB=4\n'),
      /beyond 2\^53/,
    );
  });
  it('a FIFO at a read path is refused with a warning, never waited on', async () => {
    const dir = scratchCopy('spark-2s', (d) => {
      rmSync(join(d, NODE, 'node0/meminfo'));
      execFileSync('mkfifo', [join(d, NODE, 'node0/meminfo')]);
    });
    const r = await runMain(['--root', dir, 'topo']);
    assert.equal(r.code, 0);
    assert.match(r.err, /node0\/meminfo: a FIFO, not a file \(ignored\)/);
  });
});

describe('crashes', () => {
  for (const rel of [
    `${NODE}/node0/meminfo`,
    `${NODE}/has_cpu`,
    'proc/meminfo',
    'proc/cmdline',
    'sys/devices/system/cpu/online',
    `${NODE}/node1/distance`,
  ]) {
    it(`a directory in place of ${rel} is named in one warning`, async () => {
      const dir = scratchCopy('spark-2s', (d) => {
        rmSync(join(d, rel));
        mkdirSync(join(d, rel));
      });
      const r = await runMain(['--root', dir, 'topo']);
      assert.equal(r.code, 0, r.err);
      assert.equal(r.err, `numakit: warning: /${rel}: a directory, not a file (ignored)\n`);
    });
  }
  it('a YAML alias bomb in a change file is a one-line usage error', () => {
    const levels = [
      'a: &a [x,x,x,x,x,x,x,x,x]',
      ...'bcdef'.split('').map((c, i) => `${c}: &${c} [${Array(9).fill(`*${'abcdef'[i]}`).join(',')}]`),
    ];
    assert.throws(
      () => parseChangeFile(levels.join('\n') + '\n', 'bomb.yaml'),
      (e: Error) => e.name === 'UsageError' && /^bomb\.yaml: not a change file: Excessive alias count/.test(e.message),
    );
  });
  it('a 100 MB proc/cmdline is refused with a warning (size cap), not "Invalid string length"', async () => {
    const dir = scratchCopy('spark-2s', (d) => {
      writeFileSync(join(d, 'proc/cmdline'), '');
      truncateSync(join(d, 'proc/cmdline'), 100 * 2 ** 20);
    });
    const r = await runMain(['--root', dir, 'doctor']);
    assert.ok(r.code <= 1, r.err);
    assert.match(r.err, /^numakit: warning: \/proc\/cmdline: larger than 64 MiB \(ignored\)$/m);
  });
});

describe('range checks', () => {
  it('2^64 and 10^35 are refused as integers, never printed rounded', () => {
    assert.throws(() => parseInteger('18446744073709551616'), /beyond 2\^53/);
    assert.throws(() => parseInteger('100000000000000000000000000000000000'), /beyond 2\^53/);
  });
  it('zone_reclaim_mode -1 and negative hugepage counts and HMAT latencies are warnings, not values', async () => {
    const dir = scratchCopy('cxl-3node', (d) => {
      put(d, 'proc/sys/vm/zone_reclaim_mode', '-1\n');
      put(d, `${NODE}/node0/hugepages/hugepages-2048kB/nr_hugepages`, '-5\n');
    });
    const r = await runMain(['--root', dir, 'topo', '--json']);
    const t = JSON.parse(r.out);
    assert.match(r.err, /zone_reclaim_mode:1: not an integer in 0\.\.2147483647: '-1'/);
    assert.match(r.err, /nr_hugepages:1: not an integer in 0\.\.9007199254740991: '-5'/);
    assert.ok(t.nodes.every((n: { hugepages: { total: number }[] }) => n.hugepages.every((p) => p.total >= 0)));
    const d = await runMain(['--root', dir, 'doctor', '--json', '-v']);
    assert.doesNotMatch(d.out, /"value": "-1"/);
  });
  it('MemFree > MemTotal is a warning and free memory unknown, never "931 TiB free" or a negative percentage', async () => {
    const dir = scratchCopy('spark-2s', (d) =>
      put(d, `${NODE}/node1/meminfo`, 'Node 1 MemTotal: 1000 kB\nNode 1 MemFree: 1000000000000 kB\n'),
    );
    const r = await runMain(['--root', dir, 'topo']);
    assert.match(r.out, /node 1: meminfo says MemFree .* > MemTotal .*: free memory unknown/);
    assert.doesNotMatch(r.out, /TiB free| -\d/);
    const o = await runMain(['--root', dir]);
    assert.doesNotMatch(o.out, /TiB free|-\d+(\.\d+)?%/);
  });
  it('node01 beside node1 is not a second node 1', () => {
    const dir = scratchCopy('spark-2s', (d) => mkdirSync(join(d, NODE, 'node01')));
    assert.deepEqual(listNodeDirs(openRoot(dir)), [0, 1]);
  });
  it('a device numa_node naming a node the machine lacks is an unknown node', async () => {
    const dir = scratchCopy('spark-2s', (d) => put(d, 'sys/devices/pci0000:00/0000:3b:00.0/numa_node', '7\n'));
    const t = JSON.parse((await runMain(['--root', dir, 'topo', '--json'])).out);
    assert.equal(t.devices.find((x: { name: string }) => x.name === 'ens1f0').node, null);
    assert.ok(t.warnings.some((w: string) => /numa_node 7 is not a node of this machine/.test(w)));
  });
});

describe('leftovers and small lies', () => {
  it('an empty nodeN directory does not fail stat', async () => {
    const dir = scratchCopy('spark-2s', (d) => {
      rmSync(join(d, NODE, 'node1'), { recursive: true });
      mkdirSync(join(d, NODE, 'node1'));
    });
    const r = await runMain(['--root', dir, 'stat']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /node0/);
    assert.match(r.err, /node 1 left out/);
  });
  it('a negative option value is one line saying how to write it', async () => {
    const r = await runMain(['--example', 'spark-2s', 'stat', '--procs', '--top', '-5']);
    assert.equal(r.code, 2);
    assert.equal(r.err, "numakit: stat: --top needs a value; one starting with '-' is written --top=VALUE\n");
  });
  it('a machine with a node directory but no readable node list is an error that says so', async () => {
    const dir = scratchCopy('spark-2s', (d) => {
      rmSync(join(d, NODE), { recursive: true });
      mkdirSync(join(d, NODE));
      put(d, `${NODE}/online`, 'garbage\n');
      rmSync(join(d, 'sys/devices/system/cpu'), { recursive: true });
    });
    const r = await runMain(['--root', dir, 'topo']);
    assert.equal(r.code, 1);
    assert.match(r.err, /no readable node list/);
  });
});

describe('the root is a jail', () => {
  const secret = 'root:$6$SECRET-HASH:19000:0:99999:7:::';
  const outside = scratchCopy('spark-2s');
  put(outside, 'shadow', `${secret}\n`);
  for (const [what, target] of [
    ['an absolute link', join(outside, 'shadow')],
    ['a relative link climbing out', `../../../../../../../../../../../../..${join(outside, 'shadow')}`],
    ['a link to /dev/zero', '/dev/zero'],
  ] as const) {
    it(`${what} at a read path is resolved inside the root: nothing outside is read or quoted`, async () => {
      const dir = scratchCopy('spark-2s', (d) => {
        rmSync(join(d, NODE, 'node0/meminfo'));
        symlinkSync(target, join(d, NODE, 'node0/meminfo'));
      });
      const r = await runMain(['--root', dir, 'topo']);
      assert.equal(r.code, 0, r.err);
      assert.doesNotMatch(r.out + r.err, /SECRET/);
      assert.match(r.out, /node 0 .*memory unknown \(no meminfo\)/);
    });
  }
  it('a symlink loop is one warning', async () => {
    const dir = scratchCopy('spark-2s', (d) => {
      rmSync(join(d, NODE, 'node0/meminfo'));
      symlinkSync('meminfo', join(d, NODE, 'node0/meminfo'));
    });
    const r = await runMain(['--root', dir, 'topo']);
    assert.equal(r.code, 0);
    assert.match(r.err, /node0\/meminfo: a symlink loop \(ignored\)/);
  });
  it('a device node at a read path is refused', { skip: process.getuid?.() !== 0 && 'mknod needs root' }, async () => {
    const dir = scratchCopy('spark-2s', (d) => {
      rmSync(join(d, NODE, 'node0/meminfo'));
      execFileSync('mknod', [join(d, NODE, 'node0/meminfo'), 'c', '1', '5']); // /dev/zero's numbers
    });
    const r = await runMain(['--root', dir, 'topo']);
    assert.equal(r.code, 0);
    assert.match(r.err, /node0\/meminfo: a device, not a file \(ignored\)/);
  });
});
