// Table tests of the parse half of doctor's read/parse pairs, including their error cases,
// and the readers that compose files (cgroup cpuset walk, rx queues) on small trees.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SysfsParseError } from '../../../src/model/errors.js';
import { formatWarning, Warnings } from '../../../src/model/warnings.js';
import { parseGovernor } from '../../../src/sysfs/cpufreq.js';
import { InterruptsScanner, parseInterrupts, readInterrupts } from '../../../src/sysfs/irq.js';
import { parseIrqbalanceConfig } from '../../../src/sysfs/irqbalance_config.js';
import { readKsm } from '../../../src/sysfs/ksm.js';
import { readRxQueues } from '../../../src/sysfs/net_rps.js';
import { readCgroupCpuset } from '../../../src/sysfs/cgroup_cpuset.js';
import { parseProcCgroup } from '../../../src/sysfs/proc_cgroup.js';
import { openRoot } from '../../../src/sysfs/root.js';
import { parseSwapUsage, readSwapUsage } from '../../../src/sysfs/swap.js';
import { parseTunedProfile } from '../../../src/sysfs/tuned.js';
import { writeIn } from './cli_helpers.js';

const INTERRUPTS = `           CPU0       CPU1       CPU2       CPU3
  0:         42          0          0          0  IR-IO-APIC    2-edge      timer
 40:     123456          0         10          0  IR-PCI-MSI 1572864-edge      ens1f0-TxRx-0
 41:          0          0          0     999999  IR-PCI-MSI 1572865-edge      ens1f0-TxRx-1
NMI:          1          2          3          4   Non-maskable interrupts
ERR:          0
`;

describe('parseInterrupts', () => {
  it('reads the CPU header, numbered rows with counts and names, and skips named rows', () => {
    const p = parseInterrupts(INTERRUPTS);
    assert.deepEqual(p.cpus, [0, 1, 2, 3]);
    assert.deepEqual(
      p.lines.map((l) => l.irq),
      [0, 40, 41],
    );
    assert.deepEqual(
      p.lines[1]!.counts,
      new Map([
        [0, 123456],
        [2, 10],
      ]),
      'CPUs that served none are left out',
    );
    assert.equal(p.lines[1]!.total, 123466);
    assert.equal(p.lines[2]!.desc, 'IR-PCI-MSI 1572865-edge ens1f0-TxRx-1');
  });
  it('reads only the rows asked for: another row is neither kept nor checked (issue 27: 20 MB a scrape)', () => {
    const p = parseInterrupts(`${INTERRUPTS} 77: 1 x y z  junk\n`, { irqs: new Set([41, 99]) });
    assert.deepEqual(p.lines, [
      { irq: 41, counts: new Map([[3, 999999]]), total: 999999, desc: 'IR-PCI-MSI 1572865-edge ens1f0-TxRx-1' },
    ]);
    assert.throws(() => parseInterrupts(`${INTERRUPTS} 77: 1 x y z  junk\n`), /:7: interrupt count is not a number/);
  });
  it('parses the same from bytes in pieces as from the whole text (a line split across reads)', () => {
    const s = new InterruptsScanner();
    const b = Buffer.from(INTERRUPTS);
    for (let at = 0, k = 1; at < b.length; at += k, k = (k % 7) + 1) {
      const piece = Buffer.from(b.subarray(at, at + k));
      s.push(piece, piece.length);
    }
    assert.deepEqual(s.end(), parseInterrupts(INTERRUPTS));
  });
  it('reads a file larger than a read (20 MB on 1,792 CPUs) in chunks, and a bad row is a warning', () => {
    const root = mkdtempSync(join(tmpdir(), 'numakit-interrupts-'));
    try {
      const cpus = Array.from({ length: 300 }, (_, i) => i);
      const rows = [cpus.map((c) => `CPU${c}`.padStart(11)).join('')];
      for (let irq = 100; irq < 500; irq++)
        rows.push(
          `${irq}:${cpus.map((c) => String(c === irq % 300 ? irq : 0).padStart(11)).join('')}  PCI-MSI q${irq}`,
        );
      const text = `${rows.join('\n')}\n`;
      assert.ok(text.length > 1_000_000);
      writeIn(root, 'proc/interrupts', text);
      const r = readInterrupts(openRoot(root), { irqs: new Set([100, 499]) });
      assert.deepEqual(r, parseInterrupts(text, { irqs: new Set([100, 499]) }));
      assert.deepEqual(r?.lines[1], { irq: 499, counts: new Map([[199, 499]]), total: 499, desc: 'PCI-MSI q499' });
      writeIn(root, 'proc/interrupts', `${text}499: x\n`);
      const warned: string[] = [];
      const bad = { ...openRoot(root), warnings: new Warnings((w) => void warned.push(formatWarning(w))) };
      assert.equal(readInterrupts(bad), null);
      assert.match(warned.join('\n'), /proc\/interrupts:402: interrupt count is not a number/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
  it('keeps CPU ids of a sparse header (offline CPUs have no column)', () => {
    assert.deepEqual(
      parseInterrupts('   CPU0 CPU2\n 5: 1 2 x\n').lines[0]!.counts,
      new Map([
        [0, 1],
        [2, 2],
      ]),
    );
  });
  const bad: [string, RegExp][] = [
    ['   CPU0 GPU1\n', /header is not a CPU list/],
    ['   CPU0 CPU1\n 9: 1 x chip\n', /:2: interrupt count is not a number/],
    ['   CPU0 CPU1\n 9: 1 9007199254740993 chip\n', /:2: interrupt count is not a number/],
    ['   CPU0 CPU1\n 9: 1 -2 chip\n', /:2: interrupt count is not a number/],
  ];
  for (const [text, msg] of bad)
    it(`rejects ${JSON.stringify(text.slice(0, 20))}`, () =>
      assert.throws(
        () => parseInterrupts(text),
        (e: unknown) => e instanceof SysfsParseError && msg.test(e.message),
      ));
});

describe('parseIrqbalanceConfig', () => {
  const cases: [string, number[], number[]][] = [
    ['IRQBALANCE_ARGS="--banirq=40 --banirq=41"\n', [40, 41], []],
    ["#IRQBALANCE_ARGS=--banirq=1\nIRQBALANCE_ARGS='-i 7 --banirq 9'\n", [7, 9], []],
    ['IRQBALANCE_BANNED_CPULIST=0-3,8\n', [], [0, 1, 2, 3, 8]],
    ['IRQBALANCE_BANNED_CPUS=0000000f\n', [], [0, 1, 2, 3]],
    ['IRQBALANCE_ONESHOT=0\n', [], []],
  ];
  for (const [text, irqs, cpus] of cases)
    it(JSON.stringify(text), () =>
      assert.deepEqual(parseIrqbalanceConfig(text), { bannedIrqs: irqs, bannedCpus: cpus }),
    );
  it('rejects a bad CPU list', () =>
    assert.throws(() => parseIrqbalanceConfig('IRQBALANCE_BANNED_CPULIST=a-b\n'), SysfsParseError));
});

describe('parseTunedProfile, parseGovernor', () => {
  it('tuned: one or several names; empty file = none', () => {
    assert.deepEqual(parseTunedProfile('throughput-performance\n'), ['throughput-performance']);
    assert.deepEqual(parseTunedProfile('virtual-guest my_over.ride\n'), ['virtual-guest', 'my_over.ride']);
    assert.deepEqual(parseTunedProfile('\n'), []);
    assert.throws(() => parseTunedProfile('a;rm\n'), SysfsParseError);
  });
  it('governor: a name; garbage is an error', () => {
    assert.equal(parseGovernor('performance\n'), 'performance');
    assert.throws(() => parseGovernor('Perf ormance'), SysfsParseError);
  });
});

describe('parseSwapUsage / readSwapUsage', () => {
  it('used = total - free, in bytes', () =>
    assert.deepEqual(parseSwapUsage('MemTotal: 100 kB\nSwapTotal: 1024 kB\nSwapFree: 256 kB\n'), {
      totalBytes: 1048576,
      usedBytes: 786432,
    }));
  it('no swap lines in the text is a parse error; in a tree it reads as absent', () => {
    assert.throws(() => parseSwapUsage('MemTotal: 100 kB\n'), SysfsParseError);
    const dir = mkdtempSync(join(tmpdir(), 'numakit-swap-'));
    writeIn(dir, 'proc/meminfo', 'MemTotal: 100 kB\n');
    assert.equal(readSwapUsage(openRoot(dir)).value, null);
  });
});

describe('cgroups', () => {
  it('parseProcCgroup: v2 path and v1 cpuset path', () => {
    assert.deepEqual(parseProcCgroup('0::/system.slice/mysqld.service\n'), {
      v2: '/system.slice/mysqld.service',
      cpusetV1: null,
      memoryV1: null,
    });
    assert.deepEqual(parseProcCgroup('5:cpuset:/yarn/c1\n4:cpu,cpuacct:/yarn/c1\n'), {
      v2: null,
      cpusetV1: '/yarn/c1',
      memoryV1: null,
    });
    assert.throws(() => parseProcCgroup('garbage\n'), SysfsParseError);
  });
  it('readCgroupCpuset: the nearest cgroup with cpuset.cpus set restricts (v2 empty = inherit)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'numakit-cg-'));
    writeIn(dir, 'proc/77/cgroup', '0::/db.slice/mysqld.service\n');
    writeIn(dir, 'sys/fs/cgroup/db.slice/mysqld.service/cpuset.cpus', '\n');
    writeIn(dir, 'sys/fs/cgroup/db.slice/cpuset.cpus', '0-3\n');
    writeIn(dir, 'proc/78/cgroup', '0::/user.slice\n');
    const root = openRoot(dir);
    assert.deepEqual(readCgroupCpuset(root, 77), { cgroup: '/db.slice', cpus: [0, 1, 2, 3] });
    assert.equal(readCgroupCpuset(root, 78), null);
    assert.equal(readCgroupCpuset(root, 79), null);
  });
});

describe('readers on small trees', () => {
  it('readRxQueues: rx queues in numeric order with RPS masks and flow counts', () => {
    const dir = mkdtempSync(join(tmpdir(), 'numakit-rps-'));
    for (const [q, mask] of [
      ['rx-10', '0'],
      ['rx-2', 'f0'],
    ] as const) {
      writeIn(dir, `sys/class/net/eth0/queues/${q}/rps_cpus`, `${mask}\n`);
      writeIn(dir, `sys/class/net/eth0/queues/${q}/rps_flow_cnt`, '0\n');
    }
    writeIn(dir, 'sys/class/net/eth0/queues/tx-0/xps_cpus', '1\n');
    assert.deepEqual(readRxQueues(openRoot(dir), 'eth0'), [
      { queue: 'rx-2', rpsCpus: [4, 5, 6, 7], flowCnt: 0 },
      { queue: 'rx-10', rpsCpus: [], flowCnt: 0 },
    ]);
  });
  it('readKsm: absent directory is absent, not zero', () => {
    const ksm = readKsm(openRoot(mkdtempSync(join(tmpdir(), 'numakit-ksm-'))));
    assert.equal(ksm.run.value, null);
  });
});
