// Values beyond 2^53 in the "name value" kernel files (sysfs/name_values.ts): with 5-level
// paging /proc/meminfo's VmallocTotal is 13743895347199 kB (2^57 bytes less a page). numakit
// does not use it: it costs nothing (no warning, doctor's swap check runs); a value numakit does
// use is exact or refused by name, never rounded.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { SysfsParseError } from '../../../src/model/errors.js';
import { exactValue, numberOf } from '../../../src/sysfs/name_values.js';
import { parseMeminfo, parseNodeMeminfo } from '../../../src/sysfs/node_meminfo.js';
import { parseNodeNumastat } from '../../../src/sysfs/node_numastat.js';
import { parseNodeVmstat } from '../../../src/sysfs/node_vmstat.js';
import { openRoot } from '../../../src/sysfs/root.js';
import { parseSwapUsage, readSwapUsage } from '../../../src/sysfs/swap.js';
import { REPO_DIR, runMain } from '../../helpers/cli.js';

const FIVE_LEVEL = 13743895347199n;
const meminfo = (vmalloc: string, swap = ['1048576', '524288']) =>
  [
    'MemTotal:       16384000 kB',
    'MemFree:         8192000 kB',
    `SwapTotal:      ${swap[0]} kB`,
    `SwapFree:       ${swap[1]} kB`,
    `VmallocTotal:   ${vmalloc} kB`,
    'VmallocUsed:       16668 kB',
    'HugePages_Total:       0',
    'Hugepagesize:       2048 kB',
    '',
  ].join('\n');

describe('name value files with a value beyond 2^53', () => {
  it("/proc/meminfo with 5-level paging's VmallocTotal: the rest as numbers, VmallocTotal exact aside", () => {
    const m = parseMeminfo(meminfo(String(FIVE_LEVEL)));
    assert.equal(m.MemTotal, 16384000 * 1024);
    assert.equal(m.SwapTotal, 1048576 * 1024);
    assert.equal(m.HugePages_Total, 0);
    assert.equal(m.VmallocUsed, 16668 * 1024);
    assert.equal('VmallocTotal' in m, false, 'not a number among the others');
    assert.equal(JSON.stringify(m).includes('Vmalloc' + 'Total'), false);
    assert.equal(exactValue(m, 'VmallocTotal'), FIVE_LEVEL * 1024n);
    assert.equal(exactValue(m, 'MemTotal'), 16384000n * 1024n);
    assert.equal(exactValue(m, 'NoSuchLine'), undefined);
    assert.equal(numberOf(m, 'MemTotal'), 16384000 * 1024);
    assert.throws(
      () => numberOf(m, 'VmallocTotal'),
      (e) => e instanceof SysfsParseError && /VmallocTotal 14073748835531776 is beyond 2\^53/.test(e.message),
    );
  });

  it('a value numakit uses is refused by name, never rounded (swap)', () => {
    assert.deepEqual(parseSwapUsage(meminfo(String(FIVE_LEVEL))), {
      totalBytes: 1048576 * 1024,
      usedBytes: 524288 * 1024,
    });
    assert.throws(() => parseSwapUsage(meminfo('0', [String(FIVE_LEVEL), '0'])), /SwapTotal \d+ is beyond 2\^53/);
  });

  it('the readers that share the rule: nodeN/meminfo, nodeN/vmstat (signed), nodeN/numastat', () => {
    const nm = parseNodeMeminfo(`Node 0 MemTotal: 1024 kB\nNode 0 Weird: ${FIVE_LEVEL} kB\n`);
    assert.equal(nm.MemTotal, 1024 * 1024);
    assert.equal(exactValue(nm, 'Weird'), FIVE_LEVEL * 1024n);
    const vm = parseNodeVmstat('nr_free_pages 12\nnr_big 18446744073709551615\nnr_neg -5\n');
    assert.deepEqual({ ...vm }, { nr_free_pages: 12, nr_neg: -5 });
    assert.equal(exactValue(vm, 'nr_big'), 18446744073709551615n);
    const ns = parseNodeNumastat('numa_hit 9007199254740993\nnuma_miss 3\n');
    assert.deepEqual(Object.keys(ns), ['numa_miss']);
    assert.equal(exactValue(ns, 'numa_hit'), 9007199254740993n, 'exact: a number would read ...992');
  });
});

describe('a machine with 5-level paging', () => {
  const dir = mkdtempSync(join(tmpdir(), 'numakit-5level-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(join(REPO_DIR, 'examples', 'lab-2node'), dir, { recursive: true });
  const path = join(dir, 'proc', 'meminfo');
  writeFileSync(
    path,
    readFileSync(path, 'utf8')
      .replace(/^VmallocTotal:.*$/m, `VmallocTotal:   ${FIVE_LEVEL} kB`)
      .replace(/^SwapTotal:.*$/m, 'SwapTotal:       1048576 kB')
      .replace(/^SwapFree:.*$/m, 'SwapFree:         524288 kB'),
  );

  it('reads swap with no warning', () => {
    const root = openRoot(dir, 'snapshot');
    const f = readSwapUsage(root);
    assert.deepEqual(f.value, { totalBytes: 1048576 * 1024, usedBytes: 524288 * 1024 });
  });

  it("doctor prints no warning and checks swap against the nodes' memory", async () => {
    const r = await runMain(['--root', dir, 'doctor', '--json']);
    assert.doesNotMatch(r.err, /warning/, r.err);
    const j = JSON.parse(r.out) as { findings: { id: string; severity: string; title: string }[] };
    const swap = j.findings.find((f) => f.id === 'swap/node-pressure');
    assert.ok(swap !== undefined, JSON.stringify(j.findings.map((f) => f.id)));
    assert.notEqual(swap.severity, 'not-checked', swap.title);
  });
});
