// The PMU source of access locality (issue 26 item 3): finding a memory-sampling PMU under
// /sys/bus/event_source/devices (Intel PEBS mem-loads, AMD ibs_op; Arm SPE and none said
// plainly), the perf_event_attr numakit asks for, the record stream decoded from a recorded
// (generated: test/fixtures/pmu/make_mem_loads.mjs) ring buffer, the samples counted per process
// and node, the real perf_event_open binding failing in one line, and the installed CLI on this
// kind of machine (no PMU) saying so.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { SysfsParseError } from '../../../src/model/errors.js';
import { NativeError } from '../../../src/native/errors.js';
import {
  encodePerfEventAttr,
  MEM_SAMPLE_TYPE,
  MemSampling,
  memSampleType,
  ringRecords,
} from '../../../src/native/perf_event.js';
import { accessFromSamples } from '../../../src/policy/access_locality.js';
import { nodeOfPhys, readMemoryBlocks } from '../../../src/sysfs/memory_blocks.js';
import { dataSrcOf, dramSide, parsePerfSamples, PERF_SAMPLE } from '../../../src/sysfs/perf_samples.js';
import { findMemPmu, parsePmuEvent, readPerfParanoid } from '../../../src/sysfs/pmu.js';
import { openRoot } from '../../../src/sysfs/root.js';
import { TEST_DIR } from '../../helpers/cli.js';

const tmp = mkdtempSync(join(tmpdir(), 'numakit-pmu-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

function tree(name: string, files: Record<string, string>) {
  const dir = join(tmp, name);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return openRoot(dir);
}

const DEV = 'sys/bus/event_source/devices';
const SOFTWARE = {
  [`${DEV}/software/type`]: '1\n',
  [`${DEV}/tracepoint/type`]: '2\n',
  [`${DEV}/breakpoint/type`]: '5\n',
};
const INTEL_FORMAT = (d: string) => ({
  [`${DEV}/${d}/type`]: '4\n',
  [`${DEV}/${d}/format/event`]: 'config:0-7\n',
  [`${DEV}/${d}/format/umask`]: 'config:8-15\n',
  [`${DEV}/${d}/format/ldlat`]: 'config1:0-15\n',
  [`${DEV}/${d}/events/mem-loads`]: 'event=0xcd,umask=0x1,ldlat=3\n',
});

describe('findMemPmu: which PMU samples memory accesses', () => {
  it('Intel: cpu/events/mem-loads through its format files (config 0x1cd, ldlat 3 in config1), PEBS precise_ip 2', () => {
    const p = findMemPmu(tree('intel', { ...SOFTWARE, ...INTEL_FORMAT('cpu') }));
    assert.deepEqual(p, {
      kind: 'sampling',
      vendor: 'intel-pebs',
      device: 'cpu',
      type: 4,
      config: 0x1cdn,
      config1: 3n,
      preciseIp: 2,
    });
  });
  it('Intel hybrid: the P-cores (cpu_core)', () => {
    const p = findMemPmu(
      tree('hybrid', { ...SOFTWARE, ...INTEL_FORMAT('cpu_core'), [`${DEV}/cpu_atom/type`]: '10\n' }),
    );
    assert.equal(p.kind === 'sampling' && p.device, 'cpu_core');
  });
  it('AMD: ibs_op, with its dynamic type', () => {
    const p = findMemPmu(tree('amd', { ...SOFTWARE, [`${DEV}/cpu/type`]: '4\n', [`${DEV}/ibs_op/type`]: '11\n' }));
    assert.deepEqual(p.kind === 'sampling' && [p.vendor, p.type, p.preciseIp], ['amd-ibs', 11, 0]);
  });
  it('Arm SPE: present, and said not decoded (its records come through the AUX area)', () => {
    const p = findMemPmu(tree('arm', { ...SOFTWARE, [`${DEV}/arm_spe_0/type`]: '8\n' }));
    assert.deepEqual(p, {
      kind: 'absent',
      why: 'Arm SPE (arm_spe_0) is present, but its records come through the AUX area, which numakit does not decode',
    });
  });
  it('none (a VM): absent, naming what the directory has', () => {
    const p = findMemPmu(tree('vm', { ...SOFTWARE, [`${DEV}/msr/type`]: '9\n' }));
    assert.equal(
      p.kind === 'absent' && p.why,
      `no memory-access sampling PMU under /${DEV} (it has breakpoint, msr, software, tracepoint): no Intel PEBS mem-loads, AMD ibs_op or Arm SPE, as in most virtual machines`,
    );
    const none = findMemPmu(tree('none', { 'proc/version': 'Linux\n' }));
    assert.match(
      none.kind === 'absent' ? none.why : '',
      /^no \/sys\/bus\/event_source\/devices \(a kernel without perf events\)$/,
    );
  });
  it('an event term without a format file: absent, naming the file and the term', () => {
    const files = { ...INTEL_FORMAT('cpu'), [`${DEV}/cpu/events/mem-loads`]: 'event=0xcd,frob=1\n' };
    const p = findMemPmu(tree('badterm', files));
    assert.match(p.kind === 'absent' ? p.why : '', /cpu\/events\/mem-loads: event term 'frob' has no format file/);
  });
  it('parsePmuEvent: split bit ranges ("config:0-7,32-35") take the value low bits first', () => {
    assert.deepEqual(parsePmuEvent('event=0x1cd', { event: 'config:0-7,32-35' }), {
      config: 0xcdn | (0x1n << 32n),
      config1: 0n,
      config2: 0n,
    });
  });
});

const stream = new Uint8Array(readFileSync(join(TEST_DIR, 'fixtures/pmu/mem-loads.bin')));

describe('the sample stream (test/fixtures/pmu/mem-loads.bin)', () => {
  it('decodes every record: 220 samples, the LOST record counted, the COMM skipped', () => {
    const s = parsePerfSamples(stream, MEM_SAMPLE_TYPE);
    assert.equal(s.samples.length, 220);
    assert.equal(s.lost, 7);
    assert.equal(s.other, 1);
    const first = s.samples[0]!;
    assert.deepEqual([first.pid, first.tid, first.cpu, first.side, first.weight], [4242, 4242, 0, 'local', 180n]);
    assert.equal(first.addr, 0x7f0000000000n);
    assert.deepEqual([s.samples[1]!.tid, s.samples[219]!.pid, s.samples[219]!.cpu], [4243, 4343, 2]);
  });

  it('counted per process: local and remote DRAM by data source, by node through the memory blocks; cache hits left out', () => {
    const root = tree('blocks', {
      'sys/devices/system/memory/block_size_bytes': '8000000\n',
      ...Object.fromEntries(
        Array.from({ length: 16 }, (_, b) => [`sys/devices/system/node/node${b < 8 ? 0 : 1}/memory${b}/online`, '1\n']),
      ),
      'sys/devices/system/node/node0/cpulist': '0-1\n',
      'sys/devices/system/node/node1/cpulist': '2-3\n',
    });
    const blocks = readMemoryBlocks(root)!;
    assert.equal(nodeOfPhys(blocks, 9n * 128n * 1048576n + 5n), 1);
    const access = accessFromSamples(parsePerfSamples(stream, MEM_SAMPLE_TYPE).samples, {
      cpuNode: (cpu) => (cpu < 2 ? 0 : 1),
      physNode: (phys) => nodeOfPhys(blocks, phys),
    });
    assert.deepEqual(access.get(4242), {
      kind: 'ok',
      local: 0.75,
      faults: 120,
      nodes: { 0: 90, 1: 30 },
      source: 'pmu',
    });
    assert.deepEqual(access.get(4343), { kind: 'ok', local: 0.2, faults: 50, nodes: { 0: 40, 1: 10 }, source: 'pmu' });
  });

  it('without physical addresses (perf_event_paranoid hides them): local ones on the CPU node, remote ones by count only', () => {
    const samples = parsePerfSamples(stream, MEM_SAMPLE_TYPE).samples.map((s) => ({ ...s, physAddr: 0n }));
    const a = accessFromSamples(samples, { cpuNode: (cpu) => (cpu < 2 ? 0 : 1), physNode: () => null }).get(4242);
    assert.deepEqual(a, { kind: 'ok', local: 0.75, faults: 120, nodes: { 0: 90 }, source: 'pmu' });
  });

  it('a stream cut in the middle of a record, or a sample_type it cannot lay out: one-line errors saying where', () => {
    assert.throws(
      () => parsePerfSamples(stream.subarray(0, 60), MEM_SAMPLE_TYPE),
      (e: unknown) =>
        e instanceof SysfsParseError && /record 2 at byte 24: size 72 runs past the 60 bytes read/.test(e.message),
    );
    assert.throws(
      () => parsePerfSamples(stream, MEM_SAMPLE_TYPE | (1n << 5n)),
      /sample_type has bits this reader does not decode \(0x20\)/,
    );
  });

  it('dramSide: mem_lvl (Intel) and mem_lvl_num + mem_remote (AMD, Arm) encodings', () => {
    assert.equal(dramSide(dataSrcOf('local')), 'local');
    assert.equal(dramSide(dataSrcOf('remote')), 'remote');
    assert.equal(dramSide(dataSrcOf('l1')), null);
    const lvlNumOnly = (remote: boolean) => 0x2n | (0x0dn << 33n) | ((remote ? 1n : 0n) << 37n);
    assert.deepEqual(
      [dramSide(lvlNumOnly(false)), dramSide(lvlNumOnly(true)), dramSide(0n)],
      ['local', 'remote', null],
    );
  });

  it('ringRecords: the bytes from the mmap page up to data_head, in order', () => {
    const page = 4096;
    const buf = new ArrayBuffer(page + 4 * page);
    const v = new DataView(buf);
    v.setBigUint64(1024, BigInt(stream.length), true); // data_head
    v.setBigUint64(1040, BigInt(page), true); // data_offset
    v.setBigUint64(1048, BigInt(4 * page), true); // data_size
    new Uint8Array(buf, page).set(stream);
    assert.deepEqual(ringRecords(v), stream);
  });
});

describe('perf_event_open', () => {
  it('perf_event_attr: type, size, config, period, sample_type, user-space-only flags with precise_ip, config1', () => {
    const b = encodePerfEventAttr({
      type: 4,
      config: 0x1cdn,
      config1: 3n,
      sampleType: MEM_SAMPLE_TYPE,
      samplePeriod: 4000n,
      preciseIp: 2,
    });
    const v = new DataView(b.buffer);
    assert.deepEqual(
      [v.getUint32(0, true), v.getUint32(4, true), v.getBigUint64(8, true), v.getBigUint64(16, true)],
      [4, 128, 0x1cdn, 4000n],
    );
    assert.equal(v.getBigUint64(24, true), 0x8c08fn);
    assert.equal(MEM_SAMPLE_TYPE & PERF_SAMPLE.PHYS_ADDR, PERF_SAMPLE.PHYS_ADDR);
    assert.equal(
      v.getBigUint64(40, true),
      (1n << 5n) | (1n << 6n) | (2n << 15n),
      'exclude_kernel, exclude_hv, precise_ip 2, enabled',
    );
    assert.equal(v.getBigUint64(56, true), 3n);
    const ibs = encodePerfEventAttr({
      type: 11,
      config: 0n,
      config1: 0n,
      sampleType: MEM_SAMPLE_TYPE,
      samplePeriod: 4000n,
      preciseIp: 0,
      userOnly: false,
    });
    assert.equal(new DataView(ibs.buffer).getBigUint64(40, true), 0n, 'AMD IBS: no exclude bits (it refuses them)');
  });

  it('the real call on an event no kernel has: a NativeError in one line naming the call, the PMU and the thread', () => {
    const bogus = {
      kind: 'sampling',
      vendor: 'intel-pebs',
      device: 'bogus',
      type: 0x7ffffff0,
      config: 0n,
      config1: 0n,
      preciseIp: 0,
    } as const;
    assert.throws(
      () => MemSampling.open(bogus, [process.pid]),
      (e: unknown) =>
        e instanceof NativeError &&
        e.syscall === 'perf_event_open' &&
        new RegExp(`^perf_event_open \\(bogus on tid ${process.pid}\\): [A-Za-z ]+ \\(E[A-Z]+\\)`).test(e.message) &&
        !e.message.includes('\n'),
    );
  });
});

describe('the ring buffer, for real, on a software event (no PMU needed)', () => {
  const paranoid = readPerfParanoid(openRoot('/'));
  const skip =
    process.getuid?.() !== 0 && (paranoid === null || paranoid > 2)
      ? `kernel.perf_event_paranoid is ${paranoid}: this user may not open perf events`
      : false;
  it('cpu-clock samples of this thread come back through mmap and decode with its pid, tid and CPU', { skip }, () => {
    // PERF_TYPE_SOFTWARE (1), PERF_COUNT_SW_CPU_CLOCK (0), a sample every 100 us of CPU; no
    // physical address (refused to the unprivileged), the rest of the memory sample layout.
    const type = memSampleType(false);
    const s = MemSampling.open({ device: 'software', type: 1, config: 0n, config1: 0n, preciseIp: 0 }, [process.pid], {
      period: 100_000n,
      sampleType: type,
    });
    try {
      assert.equal(s.threads, 1);
      const until = performance.now() + 60;
      let x = 0;
      while (performance.now() < until) x += Math.sqrt(x + 1);
      const [bytes] = s.read();
      const got = parsePerfSamples(bytes!, type);
      assert.ok(got.samples.length >= 5, `${got.samples.length} samples in 60 ms of CPU`);
      for (const x of got.samples) {
        assert.deepEqual([x.pid, x.tid], [process.pid, process.pid]);
        assert.ok(x.cpu >= 0 && x.side === null, `cpu ${x.cpu}, side ${x.side}: a clock sample has no data source`);
      }
    } finally {
      s.close();
    }
  });
});

describe('stat --procs on this machine, as installed', () => {
  const live = findMemPmu(openRoot('/'));
  const balancing = readFileSync('/proc/sys/kernel/numa_balancing', 'utf8').trim();
  const skip =
    live.kind === 'sampling'
      ? 'this machine has a memory-sampling PMU'
      : balancing !== '0'
        ? 'NUMA balancing is on here: ACCESS comes from its faults'
        : false;
  it('without a PMU and with NUMA balancing off, ACCESS says why for both sources', { skip }, () => {
    const bin = new URL('../../../dist/cli/bin.js', import.meta.url).pathname;
    const r = spawnSync(process.execPath, [bin, 'stat', '--procs', '--window', '0.2', '--top', '3'], {
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
    assert.match(
      r.stdout,
      /^ACCESS: not available: NUMA balancing is off \(kernel\.numa_balancing=0\): the kernel counts no faults\. PMU sampling: not available: no memory-access sampling PMU under \/sys\/bus\/event_source\/devices \(it has [^)]*\): no Intel PEBS mem-loads, AMD ibs_op or Arm SPE, as in most virtual machines\.$/m,
    );
  });
});
