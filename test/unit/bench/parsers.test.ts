import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lastLevelCache, parseCacheSize } from '../../../src/sysfs/cpu_cache.ts';
import type { CacheType } from '../../../src/model/topology.ts';
import { parseLoadavg } from '../../../src/sysfs/proc_loadavg.ts';
import { parseSmapsMapping } from '../../../src/sysfs/proc_smaps.ts';
import { parseRusage } from '../../../src/native/rusage.ts';

test('cache sizes as sysfs writes them', () => {
  assert.equal(parseCacheSize('32768K\n'), 32 * 2 ** 20);
  assert.equal(parseCacheSize('1M'), 2 ** 20);
  assert.equal(parseCacheSize('512'), 512);
  assert.throws(() => parseCacheSize('32 MB'), /not a cache size/);
});

test('the last-level cache is the highest level that is not an instruction cache', () => {
  const c = (level: number, type: CacheType, sizeBytes: number) => ({ level, type, sizeBytes, cpus: [0] });
  assert.equal(
    lastLevelCache([c(1, 'Data', 1), c(1, 'Instruction', 2), c(2, 'Unified', 3), c(3, 'Unified', 4)])?.sizeBytes,
    4,
  );
  assert.equal(lastLevelCache([c(1, 'Instruction', 2)]), null);
  assert.equal(lastLevelCache([]), null);
});

test('load average', () => {
  assert.deepEqual(parseLoadavg('0.52 0.58 0.59 2/1195 12345\n'), [0.52, 0.58, 0.59]);
  assert.throws(() => parseLoadavg('busy'), /not a load average line/);
});

const SMAPS = `7f0000000000-7f0000400000 rw-p 00000000 00:00 0
Size:               4096 kB
Rss:                4096 kB
AnonHugePages:      2048 kB
VmFlags: rd wr mr mw me ac hg
7f0000400000-7f0000401000 r--p 00000000 08:01 123 /usr/lib/x.so
Size:                  4 kB
`;

test('smaps: the mapping that holds an address, with its kB fields', () => {
  const m = parseSmapsMapping(SMAPS, 0x7f0000001000n);
  assert.equal(m?.start, 0x7f0000000000n);
  assert.equal(m?.kb['AnonHugePages'], 2048);
  assert.equal(parseSmapsMapping(SMAPS, 0x7f0000400000n)?.kb['Size'], 4);
  assert.equal(parseSmapsMapping(SMAPS, 0x1000n), null);
  assert.throws(
    () => parseSmapsMapping('7f0000000000-7f0000400000 rw-p 0 0 0\n!!\n', 0x7f0000000000n),
    /not a smaps line/,
  );
});

test('struct rusage: timevals then the fourteen longs', () => {
  const raw = BigInt64Array.from([
    2n,
    500000n,
    0n,
    250000n,
    1234n,
    0n,
    0n,
    0n,
    10n,
    3n,
    0n,
    0n,
    0n,
    0n,
    0n,
    0n,
    7n,
    8n,
  ]);
  assert.deepEqual(parseRusage(raw), {
    userS: 2.5,
    systemS: 0.25,
    maxRssKb: 1234,
    minorFaults: 10,
    majorFaults: 3,
    voluntaryCtxSwitches: 7,
    involuntaryCtxSwitches: 8,
  });
});
