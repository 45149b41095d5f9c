// Property tests of every parser in src/sysfs, src/native/mask.ts and the snapshot archive
// reader (issue 18): thousands of generated inputs each (grammar.ts: valid, boundary, hostile),
// and the only outcomes allowed are a sane value or the parser's typed error. The seed is printed;
// NUMAKIT_FC_SEED=N replays a run, NUMAKIT_FC_RUNS=N changes the count (CI: 10,000).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseCpuList, parseCpuMask } from '../../../src/model/cpuset.js';
import { SysfsParseError } from '../../../src/model/errors.js';
import { MAX_CPUS, MAX_NODES } from '../../../src/model/limits.js';
import { parseCacheSize } from '../../../src/sysfs/cpu_cache.js';
import { parseGovernor } from '../../../src/sysfs/cpufreq.js';
import { parseHostname } from '../../../src/sysfs/hostname.js';
import { parseInterrupts } from '../../../src/sysfs/irq.js';
import { parseIrqbalanceConfig } from '../../../src/sysfs/irqbalance_config.js';
import { parseCpuinfoHypervisor, parseMemTotal } from '../../../src/sysfs/kernel.js';
import { parseNodeDistance } from '../../../src/sysfs/node_distance.js';
import { parseNodeList } from '../../../src/sysfs/node_list.js';
import { parseMeminfo, parseNodeMeminfo } from '../../../src/sysfs/node_meminfo.js';
import { parseNodeNumastat } from '../../../src/sysfs/node_numastat.js';
import { parseNodeVmstat } from '../../../src/sysfs/node_vmstat.js';
import { parseBracketed, parseInteger } from '../../../src/sysfs/parse_util.js';
import { parseProcCgroup } from '../../../src/sysfs/proc_cgroup.js';
import { parseCmdline } from '../../../src/sysfs/proc_list.js';
import { parseLoadavg } from '../../../src/sysfs/proc_loadavg.js';
import { parseNumaMaps } from '../../../src/sysfs/proc_numa_maps.js';
import { parseSmapsMapping } from '../../../src/sysfs/proc_smaps.js';
import { parseProcStat } from '../../../src/sysfs/proc_stat.js';
import { parseStatmResident } from '../../../src/sysfs/proc_statm.js';
import { parseProcName, parseProcStatus } from '../../../src/sysfs/proc_status.js';
import { parseTaskStat } from '../../../src/sysfs/proc_task_stat.js';
import { parseSwapUsage } from '../../../src/sysfs/swap.js';
import { parseTunedProfile } from '../../../src/sysfs/tuned.js';
import { memoryFromNumaMaps } from '../../../src/discover/processes.js';
import { RUNS, SEED } from './fc_settings.js';
import * as g from './grammar.js';

/** Every number in a parsed value is a finite, non-NaN number (bigints aside). */
function sane(v: unknown, path = 'value'): void {
  if (typeof v === 'number') assert.ok(Number.isFinite(v), `${path} is ${v}`);
  else if (v instanceof Map)
    for (const [k, x] of v) {
      sane(k, `${path} key`);
      sane(x, `${path}[${String(k)}]`);
    }
  else if (Array.isArray(v)) v.forEach((x, i) => sane(x, `${path}[${i}]`));
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) sane(x, `${path}.${k}`);
}

/** A list of ids: sorted, unique, integers in [0, limit). */
function ids(limit: number): (v: number[]) => void {
  return (v) =>
    v.forEach((x, i) =>
      assert.ok(
        Number.isInteger(x) && x >= 0 && x < limit && (i === 0 || x > v[i - 1]!),
        `bad id list ${v.slice(0, 10)}`,
      ),
    );
}

/** The outcome of one parse: a sane value (checked further by `check`), or a one-line SysfsParseError. */
function valueOrParseError<T>(parse: (t: string) => T, text: string, check?: (v: T) => void): boolean {
  let v: T;
  try {
    v = parse(text);
  } catch (e) {
    assert.ok(e instanceof SysfsParseError, `threw ${(e as Error)?.constructor?.name}: ${(e as Error)?.message}`);
    assert.doesNotMatch(e.message, /[\x00-\x08\x0b-\x1f\x7f]/, 'the message quotes control characters');
    return true;
  }
  sane(v);
  check?.(v);
  return true;
}

const counts = (v: Record<string, number>) =>
  Object.values(v).forEach((x) => assert.ok(Number.isSafeInteger(x), `counter ${x}`));
const nonNegative = (v: Record<string, number>) =>
  Object.values(v).forEach((x) => assert.ok(Number.isSafeInteger(x) && x >= 0, `value ${x}`));

type Case = [name: string, text: fc.Arbitrary<string>, parse: (t: string) => unknown, check?: (v: never) => void];

const PARSERS: Case[] = [
  ['parseCpuList', g.cpuList, (t) => parseCpuList(t), ids(MAX_CPUS)],
  ['parseNodeList', g.cpuList, parseNodeList, ids(MAX_NODES)],
  ['parseCpuMask', g.cpuMask, parseCpuMask, ids(MAX_CPUS)],
  ['parseInteger', g.integer, parseInteger, (v: number) => assert.ok(Number.isSafeInteger(v))],
  ['parseBracketed', g.bracketed, parseBracketed],
  ['parseGovernor', g.governor, parseGovernor],
  [
    'parseNodeDistance',
    g.distance,
    parseNodeDistance,
    (v: number[]) => v.forEach((d) => assert.ok(d >= 0 && d <= 255)),
  ],
  ['parseCacheSize', g.cacheSize, parseCacheSize, (v: number) => assert.ok(Number.isSafeInteger(v) && v >= 0)],
  ['parseHostname', g.hostname, parseHostname, (v: string) => assert.ok(v !== '' && !/[\s\0]/.test(v))],
  ['parseTunedProfile', g.tunedProfile, parseTunedProfile],
  ['parseCmdline', g.cmdline, parseCmdline, (v: string) => assert.ok(!v.includes('\0'))],
  ['parseMeminfo', g.meminfo, parseMeminfo, nonNegative],
  ['parseNodeMeminfo', g.nodeMeminfo, parseNodeMeminfo, nonNegative],
  ['parseMemTotal', g.memTotal, parseMemTotal, (v: number) => assert.ok(Number.isSafeInteger(v) && v >= 0)],
  ['parseSwapUsage', g.swap, parseSwapUsage, (v: { usedBytes: number }) => assert.ok(v.usedBytes >= 0)],
  ['parseCpuinfoHypervisor', g.cpuinfo, parseCpuinfoHypervisor],
  ['parseNodeNumastat', g.counters, parseNodeNumastat, nonNegative],
  ['parseNodeVmstat', g.counters, parseNodeVmstat, counts],
  [
    'parseInterrupts',
    g.interrupts,
    parseInterrupts,
    (v: { cpus: number[]; lines: { total: number }[] }) =>
      v.lines.forEach((l) => assert.ok(Number.isSafeInteger(l.total) && l.total >= 0)),
  ],
  ['parseIrqbalanceConfig', g.irqbalanceConfig, parseIrqbalanceConfig],
  ['parseProcCgroup', g.procCgroup, parseProcCgroup],
  ['parseLoadavg', g.loadavg, parseLoadavg, (v: number[]) => v.forEach((x) => assert.ok(x >= 0))],
  [
    'parseProcStat',
    g.procStat,
    parseProcStat,
    (v: Map<number, { busy: number; total: number }>) => v.forEach((c) => assert.ok(c.busy >= 0 && c.total >= c.busy)),
  ],
  ['parseStatmResident', g.statm, parseStatmResident, (v: number) => assert.ok(Number.isSafeInteger(v) && v >= 0)],
  [
    'parseProcStatus',
    g.procStatus,
    parseProcStatus,
    (v: { threads: number; rssBytes: number }) => assert.ok(v.threads >= 1 && v.rssBytes >= 0),
  ],
  ['parseProcName', g.procStatus, parseProcName],
  [
    'parseTaskStat',
    g.taskStat,
    parseTaskStat,
    (v: { cpuTicks: number; processor: number }) => assert.ok(v.cpuTicks >= 0 && v.processor < MAX_CPUS),
  ],
  [
    'parseNumaMaps',
    g.numaMaps,
    parseNumaMaps,
    (v: { pages: ReadonlyMap<number, number> }[]) =>
      v.forEach((m) => m.pages.forEach((p, n) => assert.ok(n < MAX_NODES && p >= 0))),
  ],
  [
    'memoryFromNumaMaps',
    g.numaMaps,
    (t) => memoryFromNumaMaps(t),
    (v: { totalBytes: number }) => assert.ok(v.totalBytes >= 0),
  ],
  ['parseSmapsMapping', g.smaps, (t) => parseSmapsMapping(t, 0x1000n)],
];

describe(`every parser: a value or a typed parse error (${RUNS} inputs each, seed ${SEED}; NUMAKIT_FC_SEED=${SEED} replays)`, () => {
  for (const [name, arb, parse, check] of PARSERS) {
    it(name, (t) => {
      t.diagnostic(`seed ${SEED}, ${RUNS} runs`);
      fc.assert(
        fc.property(g.inputs(arb), (text) => valueOrParseError(parse, text, check as never)),
        { seed: SEED, numRuns: RUNS },
      );
    });
  }
});
