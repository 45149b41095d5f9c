// Weighted interleave's weights, chosen and set: integer weights in proportion to each node's
// bandwidth (HMAT access0 read bandwidth, or the best row of a bench mem matrix), as sysfs changes
// apply journals and --persist writes into tuned's [sysfs] section; topo and run --show print
// them as numactl's `interleaveweights:` line. Fixtures: the lab's 3-node CXL capture (HMAT 20000,
// 20000 and 6667 MB/s) with a 6.9+ kernel's weighted_interleave directory added.
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { BandwidthCell } from '../../../src/model/bench.js';
import {
  bandwidthFromBench,
  SHARE_TOLERANCE,
  weightChanges,
  weightsFromBandwidth,
} from '../../../src/policy/tuning/interleave_weights.js';
import { renderInterleaveWeights } from '../../../src/render/interleave_weights.js';
import { parseInterleaveWeight } from '../../../src/sysfs/weighted_interleave.js';
import { REPO_DIR, runMain } from '../../helpers/cli.js';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** The lab-3node-cxl capture, with weighted_interleave/nodeN files holding `weights`. */
function machine(weights: number[] | null): string {
  const dir = mkdtempSync(join(tmpdir(), 'numakit-wi-'));
  dirs.push(dir);
  cpSync(join(REPO_DIR, 'examples', 'lab-3node-cxl'), dir, { recursive: true, verbatimSymlinks: true });
  if (weights !== null) {
    const wi = join(dir, 'sys/kernel/mm/mempolicy/weighted_interleave');
    mkdirSync(wi, { recursive: true });
    weights.forEach((w, n) => writeFileSync(join(wi, `node${n}`), `${w}\n`));
  }
  return dir;
}

const bw = (...mbps: number[]) => mbps.map((m, node) => ({ node, mbps: m }));

describe('weightsFromBandwidth: the smallest integer weights whose shares follow the bandwidth', () => {
  const cases: Array<[string, number[], number[]]> = [
    ['two DRAM nodes and a CXL node at a third (HMAT of the lab)', [20000, 20000, 6667], [3, 3, 1]],
    ['equal nodes: 1 each', [100, 100], [1, 1]],
    ['9:1, the kernel list example (stream 200 vs 22 GB/s)', [200000, 22000], [9, 1]],
    ['a ratio that needs more than k = 1 (2.5:1)', [250, 100], [5, 2]],
    ['the slowest always gets at least 1', [100000, 1], [255, 1]],
  ];
  for (const [name, mbps, want] of cases) {
    it(name, () => {
      const got = weightsFromBandwidth(bw(...mbps));
      assert.deepEqual([...got.values()], want);
      const sumW = want.reduce((a, b) => a + b, 0);
      const sumB = mbps.reduce((a, b) => a + b, 0);
      if (Math.max(...mbps) / Math.min(...mbps) < 255)
        mbps.forEach((m, i) => assert.ok(Math.abs(want[i]! / sumW - m / sumB) <= SHARE_TOLERANCE, name));
    });
  }

  it('refuses no nodes and a bandwidth that is not a positive figure', () => {
    assert.throws(() => weightsFromBandwidth([]), /no node with a bandwidth/);
    assert.throws(() => weightsFromBandwidth(bw(100, 0)), /node 1: bandwidth 0 MB\/s/);
  });
});

describe('bandwidthFromBench: each memory node at its best CPU node', () => {
  const cell = (cpuNode: number, memNode: number, gbps: number, kernel = 'read'): BandwidthCell =>
    ({
      cpuNode,
      memNode,
      cpus: [],
      placement: {} as BandwidthCell['placement'],
      kernels: { [kernel]: { gbps: { best: gbps, median: gbps, min: gbps }, bytesPerRep: 1, seconds: [1] } },
    }) as BandwidthCell;

  it('takes the best row per memory node (its nearest initiator), read first, else triad', () => {
    const got = bandwidthFromBench([
      cell(0, 0, 20),
      cell(1, 0, 12),
      cell(0, 1, 12),
      cell(1, 1, 19),
      cell(0, 2, 6.5, 'triad'),
    ]);
    assert.deepEqual(got, bw(20000, 19000, 6500));
  });
  it('refuses a result without bandwidth cells', () => {
    assert.throws(() => bandwidthFromBench([]), /no bandwidth cells/);
  });
});

describe('the weight changes and the interleaveweights line', () => {
  it('one sysfs change per node, saying where the figures come from', () => {
    const [c] = weightChanges(new Map([[2, 1]]), bw(20000, 20000, 6667), 'HMAT read');
    assert.deepEqual(c, {
      kind: 'sysfs',
      target: 'sys/kernel/mm/mempolicy/weighted_interleave/node2',
      value: '1',
      reason:
        'weighted interleave in proportion to HMAT read bandwidth (node 0 20000 MB/s, node 1 20000 MB/s, node 2 6667 MB/s)',
    });
  });
  it("prints numactl's line: each weight followed by a space, of the nodes asked", () => {
    const w = new Map([
      [0, 3],
      [1, 3],
      [2, 1],
    ]);
    assert.equal(
      renderInterleaveWeights([0, 2], (n) => w.get(n)),
      'interleaveweights: 3 1 \n',
    );
  });
  it('a weight file holds 1..255', () => {
    assert.equal(parseInterleaveWeight('7\n'), 7);
    assert.throws(() => parseInterleaveWeight('0'), /1\.\.255/);
    assert.throws(() => parseInterleaveWeight('256'), /1\.\.255/);
  });
});

describe('apply --interleave-weights, topo', () => {
  it('hmat: the dry run changes node 0 and 1 to 3 and leaves node 2 at 1; --persist puts them in tuned [sysfs]', async () => {
    const root = machine([1, 1, 1]);
    const persist = mkdtempSync(join(tmpdir(), 'numakit-wi-persist-'));
    dirs.push(persist);
    const r = await runMain(['--root', root, 'apply', '--interleave-weights', 'hmat', '--persist', persist]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^weighted interleave weights from HMAT \(node 0: 3, node 1: 3, node 2: 1\)/);
    assert.match(r.out, /weighted_interleave\/node0: 1 -> 3/);
    assert.match(r.out, /weighted_interleave\/node1: 1 -> 3/);
    const conf = readFileSync(join(persist, 'tuned/numakit-interleave-weights/tuned.conf'), 'utf8');
    assert.match(
      conf,
      /\[sysfs\]\n# weighted interleave in proportion to HMAT read bandwidth .*\n\/sys\/kernel\/mm\/mempolicy\/weighted_interleave\/node0=3\n\/sys\/kernel\/mm\/mempolicy\/weighted_interleave\/node1=3\n\/sys\/kernel\/mm\/mempolicy\/weighted_interleave\/node2=1\n/,
    );
  });

  it('a kernel without weighted interleave (before 6.9) is one clear line, exit 1', async () => {
    const r = await runMain(['--root', machine(null), 'apply', '--interleave-weights', 'hmat']);
    assert.equal(r.code, 1);
    assert.equal(
      r.err,
      'numakit: apply: --interleave-weights: this kernel has no weighted interleave (Linux 6.9+; /sys/kernel/mm/mempolicy/weighted_interleave is absent)\n',
    );
  });

  it('a file that is not a bench mem result is named', async () => {
    const f = join(machine([1, 1, 1]), 'x.json');
    writeFileSync(f, '{"kind":"bench-ab"}');
    const r = await runMain(['--root', machine([1, 1, 1]), 'apply', '--interleave-weights', f]);
    assert.equal(r.code, 1);
    assert.match(r.err, /x\.json: not a numakit bench mem --json result/);
  });

  it('topo prints the weights as numactl does, after the nodes', async () => {
    const r = await runMain(['--root', machine([3, 3, 1]), 'topo']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /\nweighted interleave, nodes 0-2:\ninterleaveweights: 3 3 1 \n/);
    const j = await runMain(['--root', machine([3, 3, 1]), 'topo', '--json']);
    assert.deepEqual(
      (JSON.parse(j.out) as { nodes: { interleaveWeight?: number }[] }).nodes.map((n) => n.interleaveWeight),
      [3, 3, 1],
    );
  });
});
