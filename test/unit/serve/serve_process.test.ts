// `numakit serve` as a process on this machine: start-up line, option errors, the same
// meminfo_numa series as Debian's node_exporter side by side, `promtool check metrics`, and a
// SIGTERM that ends it even with a half-sent request open.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { runMain } from '../../helpers/cli.js';
import { needTools, toolPath } from '../../helpers/tools.js';
import { assertSameAsNodeExporter, startServe, type Child } from './helpers.js';

/** node_exporter with only its meminfo_numa collector, on an ephemeral loopback port. */
async function startNodeExporter(): Promise<{ scrape: () => Promise<string>; stop: () => void }> {
  const ne = spawn(toolPath('prometheus-node-exporter') ?? 'prometheus-node-exporter', [
    '--web.listen-address=127.0.0.1:0',
    '--collector.disable-defaults',
    '--collector.meminfo_numa',
  ]);
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let log = '';
      const t = setTimeout(() => reject(new Error(`node_exporter did not start: ${log}`)), 10_000);
      ne.stderr.on('data', (d: Buffer) => {
        log += d;
        const m = /address=127\.0\.0\.1:(\d+)/.exec(log);
        if (m) {
          clearTimeout(t);
          resolve(Number(m[1]));
        }
      });
    });
    return {
      scrape: async () => (await fetch(`http://127.0.0.1:${port}/metrics`)).text(),
      stop: () => ne.kill('SIGTERM'),
    };
  } catch (e) {
    ne.kill('SIGTERM');
    throw e;
  }
}

describe('serve process', () => {
  let child: Child;
  before(async () => (child = await startServe(['--top', '5', '--doctor-interval', '1h'])));
  after(() => child.stop());

  it('wrong options are usage errors (exit 2), one line each', async () => {
    for (const [args, msg] of [
      [['--top', '101'], /--top 101: expected a whole number 0\.\.100/],
      [['--listen', '0.0.0.0:0'], /0\.0\.0\.0 is reachable from other machines: give --token-file FILE/],
      [['--doctor-interval', 'soon'], /--doctor-interval 'soon': expected a duration/],
      [['--frobnicate'], /serve: unknown option '--frobnicate'/],
    ] as const) {
      const r = await runMain(['serve', ...args]);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
      assert.match(r.err, msg);
      assert.equal(r.err.trim().split('\n').length, 1, r.err);
    }
  });

  it('the same meminfo_numa names, types, labels and values as node_exporter --collector.meminfo_numa', async (t) => {
    if (!needTools(t, 'prometheus-node-exporter')) return;
    // Memory moves while the three readings are taken (other processes start and end; on a
    // loaded host by tens of MiB in a fraction of a second), so node_exporter's reading is
    // bracketed by two of ours taken just before and after it, with both servers already
    // running (neither one's start-up memory falls inside the bracket). A bracket that a burst of
    // some other process's memory fell into is taken again, up to 5 times: a real difference
    // (a name, a label, a unit, a node) fails every one of them.
    const ne = await startNodeExporter();
    const ours = async () => (await fetch(`${child.base}/metrics`)).text();
    try {
      const failures: string[] = [];
      for (let i = 0; i < 5; i++) {
        const a = await ours();
        const n = await ne.scrape();
        const b = await ours();
        try {
          return assertSameAsNodeExporter(a, n, b);
        } catch (e) {
          failures.push((e as Error).message);
        }
      }
      assert.fail(`5 readings out of bracket:\n${failures.join('\n')}`);
    } finally {
      ne.stop();
    }
  });

  it("promtool check metrics: clean but for node_exporter's own camelCase names", async (t) => {
    if (!needTools(t, 'promtool')) return;
    const text = await (await fetch(`${child.base}/metrics`)).text();
    const r = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    const problems = `${r.stdout}${r.stderr}`.split('\n').filter((l) => l.trim() !== '');
    assert.ok(problems.length > 0, 'node_exporter names are camelCase and promtool says so');
    for (const p of problems)
      assert.match(p, /^node_memory_numa_\w+ metric names should be written in 'snake_case' not 'camelCase'$/, p);
    const own = text
      .split('\n')
      .filter((l) => !/^(# (HELP|TYPE) )?node_memory_numa_/.test(l))
      .join('\n');
    const clean = spawnSync('promtool', ['check', 'metrics'], { input: own, encoding: 'utf8' });
    assert.equal(clean.status, 0, `${clean.stdout}${clean.stderr}`);
  });

  it('SIGTERM ends it at once with a half-sent request open, exit 0', async () => {
    const other = await startServe([]);
    const port = Number(new URL(other.base).port);
    const sock = connect(port, '127.0.0.1', () => sock.write('GET /metr'));
    sock.on('error', () => undefined);
    await new Promise((r) => setTimeout(r, 200));
    const t0 = Date.now();
    const code = await other.stop();
    sock.destroy();
    assert.equal(code, 0, `${other.proc.signalCode} ${other.stderr()}`);
    assert.ok(Date.now() - t0 < 3000, `exit took ${Date.now() - t0} ms`);
  });
});
