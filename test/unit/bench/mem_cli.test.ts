// bench mem on this machine's kernel, small sizes: whatever its node count, every cell is
// measured and its buffer verified on its node; and the bad inputs, each one clear line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MemResult } from '../../../src/model/bench.ts';
import { runMain } from '../../helpers/cli.ts';

test('bench mem --json: every cell measured and verified on its node, nothing on stderr', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'numakit-bench-'));
  try {
    const save = join(dir, 'mem.json');
    const r = await runMain([
      'bench',
      'mem',
      '--size',
      '4M',
      '--latency-size',
      '4M',
      '--seconds',
      '0',
      '--loaded',
      '--json',
      '--save',
      save,
    ]);
    assert.equal(r.err, '');
    assert.equal(r.code, 0);
    const res = JSON.parse(r.out) as MemResult;
    assert.deepEqual(JSON.parse(readFileSync(save, 'utf8')), res);
    assert.equal(res.schemaVersion, 1);
    assert.equal(res.bandwidth.length, res.cpuNodes.length * res.memNodes.length);
    for (const c of res.bandwidth) {
      assert.equal(c.placement.share, 1, `cell ${c.cpuNode}->${c.memNode}`);
      assert.equal(c.placement.verified, true);
      assert.equal(c.placement.pages, (12 * 2 ** 20) / 4096);
      for (const k of ['read', 'write', 'copy', 'triad'] as const) {
        assert.ok(c.kernels[k]!.seconds.length >= 5);
        assert.ok(c.kernels[k]!.gbps.best >= c.kernels[k]!.gbps.median && c.kernels[k]!.gbps.median > 0);
      }
      assert.equal(c.kernels.copy!.bytesPerRep, 2 * c.kernels.read!.bytesPerRep);
      assert.equal(c.kernels.triad!.bytesPerRep, 3 * c.kernels.read!.bytesPerRep);
    }
    assert.equal(res.latency.length, res.bandwidth.length);
    for (const c of res.latency) assert.ok(c.ns.median > 0 && c.laps >= 3);
    // A loaded cell is an idle cell's fields (in the same order in the JSON) plus its loaders.
    for (const c of res.loadedLatency) {
      assert.deepEqual(Object.keys(c), [
        ...['cpuNode', 'memNode', 'cpu', 'ns', 'laps', 'samples'],
        ...['loaders', 'loadGbps', 'placement'],
      ]);
      assert.ok(c.ns.median > 0 && c.loaders! >= 1 && c.loadGbps! > 0);
    }
    assert.equal(res.options.arrayBytes, 4 * 2 ** 20);
    // The notes a reader needs: one node has no remote figure; the prefetchers were left alone.
    assert.equal(
      res.notes.some((n) => n.startsWith('one NUMA node: every access here is local')),
      res.nodes.length === 1,
    );
    assert.ok(res.notes.some((n) => n.startsWith('hardware prefetchers were left as they are')));
    assert.equal(res.stream.ruleMet === false || res.stream.ruleMet === null, true);
    assert.ok(res.settings.kernel !== null);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('bench mem --csv prints the header and one line per figure', async () => {
  const r = await runMain(['bench', 'mem', '--size', '2M', '--only', 'bandwidth', '--seconds', '0', '--csv']);
  assert.equal(r.code, 0, r.err);
  const lines = r.out.trim().split('\n');
  assert.match(lines[0]!, /^matrix,kernel,cpu_node,mem_node/);
  assert.ok(lines.slice(1).every((l) => l.startsWith('bandwidth,')));
});

for (const [args, message, code] of [
  [['--repeats', '3'], /--repeats 3: STREAM's rule is at least 5 timed reps/, 2],
  [['--nodes', '7'], /invalid node specification '7': node 7 does not exist \(nodes: /, 1],
  [['--size', '2G'], /over the 4096 MiB a WebAssembly memory holds/, 2],
  [['--only', 'cache'], /--only cache: expected one of bandwidth, latency/, 2],
  [['--json', '--csv'], /--json and --csv cannot be used together/, 2],
  [['--threads', '0'], /--threads '0': expected a whole number >= 1/, 2],
  [['--bogus'], /--bogus/, 2],
  [['--size', 'lots'], /--size 'lots': expected a size/, 2],
] as const) {
  test(`bench mem ${args.join(' ')}: one clear line, exit ${code}`, async () => {
    const r = await runMain(['bench', 'mem', ...args]);
    assert.equal(r.code, code);
    assert.match(r.err, message);
    assert.equal(r.err.trim().split('\n').length, 1);
    assert.equal(r.out, '');
  });
}

test('bench without a subcommand, or with an unknown one, is a usage error', async () => {
  const none = await runMain(['bench']);
  assert.equal(none.code, 2);
  assert.match(none.err, /give a subcommand: mem, ab or compare/);
  const r = await runMain(['bench', 'matrix']);
  assert.equal(r.code, 2);
  assert.match(r.err, /unexpected argument 'matrix'/);
  assert.match((await runMain(['bench', 'mem', '--help'])).out, /--huge-pages/);
});

test('bench mem refuses a snapshot root', async () => {
  const r = await runMain(['--example', 'spark-2s', 'bench', 'mem']);
  assert.equal(r.code, 1);
  assert.match(r.err, /bench mem/);
});
