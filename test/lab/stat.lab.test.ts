// numakit stat in a 4-node guest: --numastat equals the real numastat's output line for line
// (numbers may differ only by what changed between the reads: each lies between numastat's
// values read just before and just after, give or take numakit's own footprint), and locality: a process
// bound with numactl --cpunodebind=0 --membind=1 has its memory on node 1 and locality near 0;
// after `migratepages PID 1 0`, near 1.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { compareNumastat } from '../unit/stat/numastat_compare.js';
import { sectionOk } from './assert.js';
import { NUMAKIT } from './numakit.js';
import { runSections, type SectionsRun } from './sections.js';
import { FOUR_NODE_ASYM } from './topologies.js';

const NEED =
  'for c in numastat numactl migratepages; do command -v $c >/dev/null || { echo "the lab guest needs $c (apt-get install numactl)" >&2; exit 99; }; done';
// Options, and how far numakit's value may lie outside numastat's before/after values: the
// counters only grow (0; MB rounding for -n); meminfo less numakit's own pages (stat -m leaves
// out what its numa_maps holds: ~35 MB Mapped, some MB anonymous) moves by what numastat's own
// run moves it (1.6 MB) plus what numa_maps cannot tell apart (a 2 MB anonymous huge page in
// AnonHugePages, page tables): 4 MB, where 128 MB had to allow for all of numakit before; the
// shell's memory is stable. MemFree and MemUsed are left as read (stat -m says so): while numakit
// runs they lack what its process holds and gives back at exit (heap, page tables, kernel stacks:
// 14 MB in a 4-node guest), more than numastat's 1.6 MB, so those two rows may lie 32 MB outside.
const MEM_ROWS = { MemFree: 32, MemUsed: 32 };
// (-z, -c on system tables and -s are compared byte for byte on fixtures, in the unit tests: live,
// numakit's own footprint can turn a zero row non-zero or widen a column between the reads.)
const MODES: Record<string, [args: string, slack: number]> = {
  default: ['', 0],
  n: ['-n', 0.01],
  m: ['-m', 4],
  p: ['-p $$', 0.05],
  pc: ['-c -p $$', 1],
  mn: ['-m -n', 4],
};

// numakit runs between two numastat runs; "@@ NAME before|ours|after" lines split the output.
const PARITY = [
  NEED,
  ...Object.entries(MODES).flatMap(([name, [args]]) => [
    `echo "@@ ${name} before"; numastat ${args}`,
    `echo "@@ ${name} ours"; ${NUMAKIT} stat --numastat ${args}`,
    `echo "@@ ${name} after"; numastat ${args}`,
  ]),
].join('\n');

// dd keeps a 128 MiB buffer (anonymous memory) and fills it from /dev/zero again and again:
// all CPU on node 0, nearly all memory on node 1. Its few file pages (dd, libc) may lie anywhere.
const LOCALITY = [
  NEED,
  'numactl --cpunodebind=0 --membind=1 dd if=/dev/zero of=/dev/null bs=128M 2>/dev/null & W=$!',
  'sleep 3',
  `echo "@@ before"; ${NUMAKIT} stat --procs --json --window 2 --top 100`,
  `echo "@@ p"; ${NUMAKIT} stat --json -p $W`,
  'migratepages $W 1 0',
  'sleep 1',
  `echo "@@ after"; ${NUMAKIT} stat --procs --json --window 2 --top 100`,
  'echo "@@ pid"; echo $W',
  'kill $W',
].join('\n');

function split(stdout: string): Map<string, string> {
  const parts = new Map<string, string>();
  let key: string | null = null;
  const lines = stdout.split('\n');
  if (lines.at(-1) === '') lines.pop(); // the final newline ends the last line, it starts no new one
  for (const line of lines) {
    const m = /^@@ (.+)$/.exec(line);
    if (m) {
      key = m[1]!;
      parts.set(key, '');
    } else if (key !== null) parts.set(key, `${parts.get(key)}${line}\n`);
  }
  return parts;
}

interface Proc {
  pid: number;
  locality: number | null;
  nodes: Record<string, { totalBytes: number }>;
  totalBytes: number;
  cpuNodes: Record<string, number>;
}

describe('numakit stat in a 4-node guest', () => {
  let run: SectionsRun;
  before(async () => {
    run = await runSections(FOUR_NODE_ASYM, { parity: PARITY, locality: LOCALITY }, { timeoutMs: 420_000 });
  });
  after(() => run?.cleanup());

  for (const [name, [args, slack]] of Object.entries(MODES)) {
    it(`stat --numastat ${args || '(no option)'} equals numastat ${args} (numbers between numastat's reads before and after)`, () => {
      const parts = split(sectionOk(run, 'parity').stdout);
      const [before, ours, after] = ['before', 'ours', 'after'].map((k) => parts.get(`${name} ${k}`)!);
      assert.ok(before!.split('\n').length > 3, `numastat printed:\n${before}`);
      assert.deepEqual(
        compareNumastat(ours!, before!, {
          after: after!,
          slack,
          ...(name.startsWith('m') ? { rowSlack: MEM_ROWS } : {}),
        }),
        [],
        `numakit:\n${ours}\nnumastat before:\n${before}\nnumastat after:\n${after}`,
      );
    });
  }

  it('a process bound with --cpunodebind=0 --membind=1 has its memory on node 1 and locality near 0; after migratepages 1 0, near 1', (t) => {
    const parts = split(sectionOk(run, 'locality').stdout);
    const pid = Number(parts.get('pid')!.trim());
    const find = (key: string) => (JSON.parse(parts.get(key)!).processes as Proc[]).find((p) => p.pid === pid);
    const before = find('before');
    const afterMigrate = find('after');
    assert.ok(before && afterMigrate, `dd (PID ${pid}) not among the processes:\n${parts.get('before')}`);
    assert.ok(
      (before.nodes['1']?.totalBytes ?? 0) > 0.9 * before.totalBytes,
      `node 1 holds ${JSON.stringify(before.nodes)}`,
    );
    assert.ok((before.cpuNodes['0'] ?? 0) > 0, `CPU time ${JSON.stringify(before.cpuNodes)}`);
    t.diagnostic(
      `locality before ${before.locality?.toFixed(3)} after ${afterMigrate.locality?.toFixed(3)}; node 1 share before ${((before.nodes['1']?.totalBytes ?? 0) / before.totalBytes).toFixed(3)}`,
    );
    assert.ok(before.locality !== null && before.locality < 0.1, `locality before: ${before.locality}`);
    assert.ok(
      afterMigrate.locality !== null && afterMigrate.locality > 0.9,
      `locality after migratepages: ${afterMigrate.locality} ${JSON.stringify(afterMigrate.nodes)}`,
    );
    const p = JSON.parse(parts.get('p')!).processes[0];
    assert.ok(p.nodes['1'].totalBytes >= 128 * 1024 * 1024, `stat -p: ${JSON.stringify(p.nodes)}`);
  });
});
