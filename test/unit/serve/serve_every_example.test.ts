// `numakit serve` as a user runs it (the built CLI, dist/cli/bin.js, as this user) on every
// shipped example and on this machine (a one-node host in CI and here): every collector reports
// success, none throws (nothing on stderr but the start-up), and processes are exported wherever
// the machine has them. Before the one process sampler, serve on a one-node host exported no
// process (a TypeError caught and dropped: collector_success{collector="processes"} 0), and on
// lab-2node-procs (a capture without /proc/PID/stat) every process was a 'vanished' gap.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { REPO_DIR } from '../../helpers/cli.js';
import { parseExposition } from './helpers.js';

const BIN = join(REPO_DIR, 'dist/cli/bin.js');
const EXAMPLES = join(REPO_DIR, 'examples');

interface Served {
  readonly metrics: string;
  readonly stderr: string;
}

/** Starts the built CLI's serve, scrapes /metrics twice (the second has a CPU window), stops it. */
async function serveOnce(globals: string[]): Promise<Served> {
  const proc = spawn(process.execPath, [BIN, ...globals, 'serve', '--listen', '127.0.0.1:0', '--top', '20'], {
    cwd: REPO_DIR,
    env: { ...process.env, NUMAKIT_DEBUG: '1' },
  });
  let out = '';
  let err = '';
  proc.stderr.on('data', (d: Buffer) => (err += d));
  try {
    const base = await new Promise<string>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`serve did not start in 30 s: ${err}`)), 30_000);
      proc.stdout.on('data', (d: Buffer) => {
        out += d;
        const m = /(http:\/\/127\.0\.0\.1:\d+)\//.exec(out);
        if (m) {
          clearTimeout(t);
          resolve(m[1]!);
        }
      });
      proc.once('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
    });
    await (await fetch(`${base}/metrics`)).text();
    const metrics = await (await fetch(`${base}/metrics`)).text();
    return { metrics, stderr: err };
  } finally {
    if (proc.exitCode === null) {
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await exited;
    }
  }
}

/** The collectors that did not report success, with their gaps. */
function failing(metrics: string): string[] {
  const ok = parseExposition(metrics, 'numakit_scrape_collector_success').values;
  const gaps = parseExposition(metrics, 'numakit_scrape_gaps').values;
  assert.ok(ok.size >= 7, `collectors reported: ${[...ok.keys()].join(', ')}`);
  return [...ok]
    .filter(([, v]) => v !== 1)
    .map(([k]) => `${k} (gaps: ${[...gaps].map(([g, n]) => `${g} ${n}`).join(', ') || 'none'})`);
}

function processesExported(metrics: string): number {
  return parseExposition(metrics, 'numakit_process_memory_bytes').values.size;
}

/** Examples captured with /proc/PID (their manifest says processes: true). */
function hasProcesses(name: string): boolean {
  const m = JSON.parse(readFileSync(join(EXAMPLES, name, 'manifest.json'), 'utf8')) as { processes?: boolean };
  return m.processes === true;
}

describe('serve (the built CLI) on every example and on this host: every collector succeeds', () => {
  const built = existsSync(BIN);
  if (!built && process.env.CI) assert.fail(`${BIN} is missing: npm test builds it first`);
  const examples = readdirSync(EXAMPLES).filter((e) => existsSync(join(EXAMPLES, e, 'manifest.json')));

  it('shipped examples are found', () => assert.ok(examples.length >= 8, examples.join(', ')));

  for (const name of examples)
    it(`--example ${name}`, async (t) => {
      if (!built) return t.skip('needs a build (npm run build): dist/cli/bin.js');
      const r = await serveOnce(['--example', name]);
      assert.deepEqual(failing(r.metrics), [], r.stderr);
      assert.doesNotMatch(r.stderr, /failed/, r.stderr);
      if (hasProcesses(name)) assert.ok(processesExported(r.metrics) > 0, 'no process exported');
    });

  it('this host (live /proc, this user)', async (t) => {
    if (!built) return t.skip('needs a build (npm run build): dist/cli/bin.js');
    const r = await serveOnce([]);
    assert.deepEqual(failing(r.metrics), [], r.stderr);
    assert.doesNotMatch(r.stderr, /failed/, r.stderr);
    // This test's own node process has resident memory: at least one process is exported.
    assert.ok(processesExported(r.metrics) > 0, 'no process exported');
  });
});
