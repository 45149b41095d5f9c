// Every reading command on every shipped example, as a new user tries them: none errs, none says
// a process is gone, and top's drill-down (Enter on a process) finds every process top lists. An
// example must carry every file the commands read; a snapshot taken since carries the drill-down's
// files too (its stat and cgroup, beside what the sampler reads).
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createSampler } from '../../../src/discover/process_sampler.js';
import { readProcessDetail } from '../../../src/discover/top_detail.js';
import { discoverTopology } from '../../../src/discover/topology.js';
import { openRoot, type SysRoot } from '../../../src/sysfs/root.js';
import { REPO_DIR, runMain } from '../../helpers/cli.js';

const EXAMPLES = join(REPO_DIR, 'examples');
const names = readdirSync(EXAMPLES).filter((n) => !n.startsWith('.'));
const base = mkdtempSync(join(tmpdir(), 'numakit-every-example-'));
after(() => rmSync(base, { recursive: true, force: true }));

/** Command lines that read (the overview first); OUT becomes a fresh path. */
const COMMANDS: string[][] = [
  [],
  ['topo'],
  ['topo', '--numactl'],
  ['topo', '--xml'],
  ['topo', '--json'],
  ['topo', '--svg', 'OUT.svg'],
  ['topo', '--html', 'OUT.html'],
  ['doctor', '-v'],
  ['doctor', '--json'],
  ['doctor', '--profile', 'spark'],
  ['doctor', '--profile', 'database', '--markdown'],
  ['stat'],
  ['stat', '-m'],
  ['stat', '-n'],
  ['stat', '--numastat'],
  ['stat', '--procs'],
  ['stat', '--procs', '--json'],
  ['top', '--iterations', '2', '--interval', '0.01'],
  ['apply', '--profile', 'general'],
  ['apply', '--profile', 'spark'],
  ['plan', 'spark-standalone', '--out', 'OUT.plan'],
  ['plan', 'jvm', '--heap', '256m', '--jar', '/opt/app.jar', '--out', 'OUT.plan'],
  ['k8s', 'nrt', '--node', 'worker-1'],
  ['snapshot', 'OUT.tar.gz'],
];

/** Statuses that mean it worked: doctor's 1 is "findings". */
const OK: Readonly<Record<string, readonly number[]>> = { doctor: [0, 1] };

let n = 0;
const fill = (args: string[]) => args.map((a) => a.replace(/^OUT/, join(base, `out${n++}`)));

function pidsOf(root: SysRoot): number[] {
  return createSampler(root)
    .sample(0)
    .map((s) => s.pid);
}

for (const name of names) {
  describe(`example ${name}`, () => {
    test('every reading command: no error, nothing gone', async () => {
      const wrong: string[] = [];
      for (const cmd of COMMANDS) {
        const args = ['--example', name, ...fill(cmd)];
        const r = await runMain(args);
        const ok = OK[cmd[0] ?? ''] ?? [0];
        const errors = r.err.split('\n').filter((l) => /^numakit: (?!warning: |note: )/.test(l));
        // plan refuses a lab guest's 0.5 GiB nodes (each keeps a 2 GiB reserve) in one line: the
        // answer to the question asked, not an error of the example.
        const tooSmall =
          cmd[0] === 'plan' &&
          r.code === 2 &&
          errors.length === 1 &&
          /does not fit this machine|than its reserve/.test(r.err);
        if (tooSmall) continue;
        if (!ok.includes(r.code) || errors.length > 0 || /process \d+ is gone|internal error/.test(r.out + r.err))
          wrong.push(`numakit ${args.join(' ')}: exit ${r.code}: ${r.err.trim().slice(0, 300)}`);
      }
      assert.deepEqual(wrong, []);
    });

    test("stat -p and top's drill-down on every process top lists", async () => {
      const root = openRoot(join(EXAMPLES, name), `example ${name}`);
      const topology = discoverTopology(root);
      for (const pid of pidsOf(root)) {
        assert.notEqual(readProcessDetail(root, pid, topology), null, `top's drill-down: process ${pid} is gone`);
        const r = await runMain(['--example', name, 'stat', '-p', String(pid)]);
        assert.equal(r.code, 0, `stat -p ${pid}: ${r.err}`);
      }
    });
  });
}

describe('a snapshot carries what the drill-down reads', () => {
  test("a process's cgroup and stat travel with snapshot --processes", async () => {
    const src = join(base, 'src');
    cpSync(join(REPO_DIR, 'test/fixtures/stat/four-node'), src, { recursive: true, verbatimSymlinks: true });
    const root = openRoot(src);
    const pids = pidsOf(root);
    assert.ok(pids.length > 0);
    for (const pid of pids) writeFileSync(join(src, `proc/${pid}/cgroup`), `0::/system.slice/app-${pid}.service\n`);
    const out = join(base, 'snap');
    const r = await runMain(['--root', src, 'snapshot', '--processes', out]);
    assert.equal(r.code, 0, r.err);
    const snap = openRoot(out);
    const topology = discoverTopology(root);
    for (const pid of pids) {
      const d = readProcessDetail(snap, pid, topology);
      assert.notEqual(d, null, `process ${pid} is gone in the snapshot`);
      assert.equal(d!.cgroup, `/system.slice/app-${pid}.service`);
      assert.deepEqual(d, readProcessDetail(root, pid, topology));
    }
  });
});
