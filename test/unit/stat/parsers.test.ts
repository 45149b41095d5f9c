// The stat readers' parse* functions: good input and the errors they name.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SysfsParseError } from '../../../src/model/errors.js';
import { parseNodeNumastat } from '../../../src/sysfs/node_numastat.js';
import { parseNodeVmstat } from '../../../src/sysfs/node_vmstat.js';
import { parseCmdline } from '../../../src/sysfs/proc_list.js';
import { parseNumaMaps, parseNumaMapsLine } from '../../../src/sysfs/proc_numa_maps.js';
import { parseStatmResident } from '../../../src/sysfs/proc_statm.js';
import { parseProcStatus } from '../../../src/sysfs/proc_status.js';
import { parseTaskStat } from '../../../src/sysfs/proc_task_stat.js';

test('parseNodeNumastat keeps the kernel order and values', () => {
  const c = parseNodeNumastat(
    'numa_hit 2414883\nnuma_miss 0\nnuma_foreign 3\ninterleave_hit 1120\nlocal_node 2414883\nother_node 0\n',
  );
  assert.deepEqual(Object.keys(c), [
    'numa_hit',
    'numa_miss',
    'numa_foreign',
    'interleave_hit',
    'local_node',
    'other_node',
  ]);
  assert.equal(c['numa_foreign'], 3);
  assert.deepEqual(parseNodeNumastat(''), {});
});

test('parseNodeNumastat names the bad line', () => {
  assert.throws(
    () => parseNodeNumastat('numa_hit 1\nnuma_miss x\n'),
    (e: unknown) => e instanceof SysfsParseError && e.line === 2 && /numa_miss x/.test(e.message),
  );
});

test('parseNodeVmstat reads signed counters and rejects junk', () => {
  assert.deepEqual(parseNodeVmstat('nr_free_pages 12\nnr_zone_write_pending -1\n'), {
    nr_free_pages: 12,
    nr_zone_write_pending: -1,
  });
  assert.throws(() => parseNodeVmstat('nr_free_pages\n'), SysfsParseError);
});

test('parseCmdline turns NUL separators into spaces', () => {
  assert.equal(parseCmdline('java\0-Xmx8g\0'), 'java -Xmx8g ');
  assert.equal(parseCmdline(''), '');
});

test('parseProcStatus: name, state, threads, RSS and the allowed lists', () => {
  const s = parseProcStatus(
    'Name:\tpostgres: io\nState:\tS (sleeping)\nVmRSS:\t    4292 kB\nThreads:\t3\nCpus_allowed_list:\t0-3,8\nMems_allowed_list:\t1\n',
  );
  assert.deepEqual(s, {
    name: 'postgres: io',
    state: 'S',
    threads: 3,
    rssBytes: 4292 * 1024,
    hugetlbBytes: 0,
    cpusAllowed: [0, 1, 2, 3, 8],
    memsAllowed: [1],
  });
  assert.equal(
    parseProcStatus('Name:\tpg\nState:\tS\nVmRSS:\t 4 kB\nHugetlbPages:\t 2048 kB\n').hugetlbBytes,
    2048 * 1024,
  );
});

test('parseProcStatus: processes with the same Cpus_allowed_list share one frozen list (issue 27: 10,000 copies of 1,792 ids)', () => {
  const text = (pid: number) =>
    `Name:\tapp\nState:\tS\nPid:\t${pid}\nCpus_allowed:\tff\nCpus_allowed_list:\t0-1791\nMems_allowed_list:\t0-31\n`;
  const a = parseProcStatus(text(1));
  const b = parseProcStatus(text(2));
  assert.equal(a.cpusAllowed?.length, 1792);
  assert.equal(a.cpusAllowed, b.cpusAllowed);
  assert.equal(a.memsAllowed, b.memsAllowed);
  assert.ok(Object.isFrozen(a.cpusAllowed));
  // Lines not read (Cpus_allowed, the mask) and a key written twice: the last one wins, blanks cut.
  const s = parseProcStatus('Name:\t x y \nState:\tR\nThreads:\t2\nThreads: \t5\nCpus_allowed_list:\t\n');
  assert.equal(s.name, 'x y ');
  assert.equal(s.threads, 5);
  assert.deepEqual(s.cpusAllowed, []);
  assert.throws(() => parseProcStatus('Name:\tx\nState:\tS\nCpus_allowed_list:\t0-a\n'), SysfsParseError);
});

test('parseProcStatus: a kernel thread or zombie has no VmRSS (0 bytes); no Name is an error', () => {
  assert.equal(parseProcStatus('Name:\tkworker/0:1\nState:\tI (idle)\n').rssBytes, 0);
  assert.equal(parseProcStatus('Name:\tx\nState:\tZ (zombie)\n').state, 'Z');
  assert.throws(() => parseProcStatus('State:\tS\n'), SysfsParseError);
});

const STAT_TAIL =
  'S 1 2 3 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 1 0 1000 5369856 1004 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 0 7 0 0 0 0 0';

test('parseTaskStat counts fields after the last ")" (comm may hold spaces and parentheses)', () => {
  const s = parseTaskStat(`42 (my (odd) prog) ${STAT_TAIL}\n`);
  assert.deepEqual(s, {
    comm: 'my (odd) prog',
    state: 'S',
    cpuTicks: 300,
    processor: 7,
    startTicks: 1000,
    threads: 1,
    rssPages: 1004,
    vsizeBytes: 5369856,
    faults: 100,
  });
});

test('parseTaskStat rejects a line without comm or with too few fields', () => {
  assert.throws(() => parseTaskStat('42 S 1 2'), SysfsParseError);
  assert.throws(() => parseTaskStat('42 (x) S 1 2 3'), /field 14/);
});

test('parseNumaMapsLine: categories are decided like numastat (first huge/heap/stack word)', () => {
  const cases: [string, string][] = [
    ['55d0c2000000 default heap anon=4000 dirty=4000 N0=3000 N1=1000 kernelpagesize_kB=4', 'heap'],
    ['7ffd3a000000 default stack anon=33 N0=33 kernelpagesize_kB=4', 'stack'],
    ['7f1a00000000 default file=/dev/hugepages/x huge dirty=12 N1=12 kernelpagesize_kB=2048', 'huge'],
    ['7f1b00000000 default anon=25000 N0=20000 kernelpagesize_kB=4', 'private'],
    ['7f1b00000000 default file=/usr/lib/libc.so.6 mapped=3 N0=3 kernelpagesize_kB=4', 'private'],
  ];
  for (const [line, cat] of cases) assert.equal(parseNumaMapsLine(line).category, cat, line);
});

test('parseNumaMapsLine: policies, including those the kernel prints with a space', () => {
  const cases: [string, string, string][] = [
    ['7e00 interleave:0-3 anon=4 N0=1 N1=1 N2=1 N3=1 kernelpagesize_kB=4', 'interleave', '0-3'],
    ['7e00 bind:1 anon=4 N1=4 kernelpagesize_kB=4', 'bind', '1'],
    ['7e00 prefer:2 anon=4 N2=4 kernelpagesize_kB=4', 'prefer', '2'],
    ['7e00 prefer (many):0,2 anon=4 N2=4 kernelpagesize_kB=4', 'prefer (many)', '0,2'],
    ['7e00 weighted interleave:0-1 anon=4 N0=4 kernelpagesize_kB=4', 'weighted interleave', '0-1'],
    ['7e00 bind=static:1 anon=4 N1=4 kernelpagesize_kB=4', 'bind', '1'],
    ['7e00 local anon=4 N0=4 kernelpagesize_kB=4', 'local', ''],
    ['7e00 default anon=4 N0=4 kernelpagesize_kB=4', 'default', ''],
  ];
  for (const [line, policy, nodes] of cases) {
    const m = parseNumaMapsLine(line);
    assert.deepEqual([m.policy, m.policyNodes], [policy, nodes], line);
  }
});

test('parseNumaMapsLine: pages per node and the page size of each mapping (2 MiB and 1 GiB)', () => {
  const a = parseNumaMapsLine('7f00 bind:1 file=/dev/hugepages1G/b huge dirty=1 N1=1 kernelpagesize_kB=1048576');
  const b = parseNumaMapsLine('7f40 bind:1 file=/dev/hugepages/b huge dirty=3 N1=3 kernelpagesize_kB=2048');
  assert.deepEqual([a.pageKb, [...a.pages]], [1048576, [[1, 1]]]);
  assert.deepEqual([b.pageKb, [...b.pages]], [2048, [[1, 3]]]);
  assert.equal(parseNumaMapsLine('7f00 default anon=1 N0=1').pageKb, null);
});

test('parseNumaMaps: empty (kernel thread, zombie) and bad lines named by number', () => {
  assert.deepEqual(parseNumaMaps(''), []);
  assert.throws(
    () => parseNumaMaps('7f00 default N0=1\nnot-an-address default\n'),
    (e: unknown) => e instanceof SysfsParseError && e.line === 2,
  );
  assert.throws(() => parseNumaMaps('7f00 default N0=1 kernelpagesize_kB=0\n'), SysfsParseError);
});

test('parseStatmResident reads the resident page count (field 2); a line without one is a parse error', () => {
  assert.equal(parseStatmResident('230421 25601 3021 1 0 201343 0\n'), 25601);
  assert.throws(() => parseStatmResident('230421\n'), SysfsParseError);
  assert.throws(() => parseStatmResident('230421 x 3\n'), SysfsParseError);
});
