// Table tests of the pure parsers behind every reader, including their error cases.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatCpuList, formatCpuMask, parseCpuList, parseCpuMask, sharedCpuList } from '../../../src/model/cpuset.js';
import { SysfsParseError } from '../../../src/model/errors.js';
import { parseCpuinfoHypervisor } from '../../../src/sysfs/kernel.js';
import { parseNodeDistance } from '../../../src/sysfs/node_distance.js';
import { parseMeminfo, parseNodeMeminfo } from '../../../src/sysfs/node_meminfo.js';
import { parseAt, parseBracketed, parseInteger } from '../../../src/sysfs/parse_util.js';

describe('parseCpuList / formatCpuList', () => {
  const cases: [string, number[], string][] = [
    ['0-3,8,10-11\n', [0, 1, 2, 3, 8, 10, 11], '0-3,8,10-11'],
    ['', [], ''],
    ['\n', [], ''],
    ['5', [5], '5'],
    ['0-7:2', [0, 2, 4, 6], '0,2,4,6'],
    ['3,1,2,1', [1, 2, 3], '1-3'],
    ['0-3,2-5', [0, 1, 2, 3, 4, 5], '0-5'],
    ['8-9,0-1:1,4', [0, 1, 4, 8, 9], '0-1,4,8-9'],
    ['0-4:2,1-5:2', [0, 1, 2, 3, 4, 5], '0-5'],
    ['0-15,32-47', [...Array(16).keys(), ...Array.from({ length: 16 }, (_, i) => 32 + i)], '0-15,32-47'],
  ];
  for (const [text, ids, formatted] of cases) {
    it(`parses ${JSON.stringify(text)}`, () => {
      assert.deepEqual(parseCpuList(text), ids);
      assert.equal(formatCpuList(ids), formatted);
    });
  }
  it('formats ids in any order, repeated or not, as the sorted list', () => {
    assert.equal(formatCpuList([3, 1, 2, 1, 8]), '1-3,8');
    assert.equal(formatCpuList([0, 1, 1, 2]), '0-2');
    assert.equal(formatCpuList([5, 4]), '4-5');
    assert.equal(formatCpuList([7]), '7');
  });
  it('formats a shared (frozen) list as any other, and a list changed since as it is now', () => {
    const shared = sharedCpuList('0-3,8');
    assert.equal(formatCpuList(shared), '0-3,8');
    assert.equal(formatCpuList(shared), '0-3,8');
    const mine = [0, 1, 2];
    assert.equal(formatCpuList(mine), '0-2');
    mine.push(5);
    assert.equal(formatCpuList(mine), '0-2,5');
  });
  for (const bad of ['a', '1-', '3-1', '0-3,,4', '1 2', '-1']) {
    it(`rejects ${JSON.stringify(bad)} with a SysfsParseError`, () => {
      assert.throws(() => parseCpuList(bad), SysfsParseError);
    });
  }
});

describe('parseCpuMask / formatCpuMask', () => {
  const cases: [string, number[]][] = [
    ['0000000f\n', [0, 1, 2, 3]],
    ['00000001,00000000', [32]],
    ['ff,00000001', [0, 32, 33, 34, 35, 36, 37, 38, 39]],
    ['0', []],
    ['80000000,00000000,00000001', [0, 95]],
    ['0x00000003,ffffffff', [...Array(34).keys()]],
  ];
  for (const [text, ids] of cases) {
    it(`parses ${JSON.stringify(text)}`, () => assert.deepEqual(parseCpuMask(text), ids));
  }
  it('formats in 32-bit words, most significant first', () => {
    assert.equal(formatCpuMask([0, 33]), '00000002,00000001');
    assert.equal(formatCpuMask([], 2), '00000000,00000000');
  });
  it('rejects a non-hex word', () => assert.throws(() => parseCpuMask('zz,00000001'), SysfsParseError));
});

describe('parseNodeMeminfo / parseMeminfo', () => {
  it('reads kB values as bytes and huge page counts as counts', () => {
    const m = parseNodeMeminfo(
      'Node 0 MemTotal:       16384 kB\nNode 0 MemFree:          1024 kB\nNode 0 HugePages_Total:     3\n',
    );
    assert.deepEqual(m, { MemTotal: 16384 * 1024, MemFree: 1024 * 1024, HugePages_Total: 3 });
  });
  it('keeps parenthesised keys', () => {
    assert.equal(parseNodeMeminfo('Node 1 Active(anon):       2 kB\n')['Active(anon)'], 2048);
  });
  it('names the line of a line without the Node prefix', () => {
    assert.throws(
      () => parseNodeMeminfo('Node 0 MemTotal: 1 kB\nMemFree: 2 kB\n'),
      (e: SysfsParseError) => e.line === 2,
    );
  });
  it('names the line of a malformed value', () => {
    assert.throws(
      () => parseNodeMeminfo('Node 0 MemTotal: lots kB\n'),
      (e: SysfsParseError) => e.line === 1 && /meminfo/.test(e.message),
    );
  });
  it('parses /proc/meminfo', () => {
    assert.equal(parseMeminfo('MemTotal:       24683656 kB\nMemFree:  1 kB\n').MemTotal, 24683656 * 1024);
  });
});

describe('small parsers', () => {
  it('parseNodeDistance', () => {
    assert.deepEqual(parseNodeDistance('10 21 24\n'), [10, 21, 24]);
    assert.deepEqual(parseNodeDistance(''), []);
    assert.throws(() => parseNodeDistance('10 x'), SysfsParseError);
  });
  it('parseInteger', () => {
    assert.equal(parseInteger(' -1\n'), -1);
    assert.throws(() => parseInteger('1.5'), SysfsParseError);
  });
  it('parseBracketed', () => {
    assert.equal(parseBracketed('always [madvise] never\n'), 'madvise');
    assert.throws(() => parseBracketed('always madvise'), SysfsParseError);
  });
  it('parseCpuinfoHypervisor', () => {
    assert.equal(parseCpuinfoHypervisor('flags\t\t: fpu vme hypervisor lahf_lm\n'), true);
    assert.equal(parseCpuinfoHypervisor('flags\t\t: fpu vme lahf_lm\n'), false);
  });
  it('parseAt re-attributes a parse error to the file', () => {
    assert.throws(
      () => parseAt('sys/devices/system/node/node0/cpulist', '0-x', parseCpuList),
      (e: SysfsParseError) =>
        e.path === 'sys/devices/system/node/node0/cpulist' &&
        /node0\/cpulist:1: not a CPU\/node list: '0-x'/.test(e.message),
    );
  });
});
