// numakit run in a guest with real NUMA nodes, side by side with numactl: the same pages
// on the same nodes, the same CPUs; interleave spreads; exit codes and signals pass through;
// memory-only and missing nodes are clear errors.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sectionOk } from './assert.js';
import { shellQuote } from './guest.js';
import { NUMAKIT } from './numakit.js';
import { runSections, type SectionsRun } from './sections.js';
import { THREE_NODE_CXL, TWO_NODE } from './topologies.js';

// Touches 64 MiB, then reports its CPUs and where its anonymous pages are (numa_maps N<node>=).
const WORKLOAD = `node -e ${shellQuote(`
const b = Buffer.alloc(64 << 20, 1);
const fs = require('fs');
const anon = {};
for (const l of fs.readFileSync('/proc/self/numa_maps', 'utf8').split('\\n')) {
  if (!/ anon=/.test(l)) continue;
  for (const m of l.matchAll(/ N(\\d+)=(\\d+)/g)) anon[m[1]] = (anon[m[1]] || 0) + Number(m[2]);
}
const cpus = /Cpus_allowed_list:\\s*(\\S+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1];
console.log(JSON.stringify({ cpus, anon, touched: b.length }));
`)}`;

// Eleven Node start-ups under TCG take about 130 s on an idle 2-core host; twice the default
// 180 s leaves room for a busy one.
const SLOW_GUEST_MS = 360_000;

const NEED_NUMACTL =
  'command -v numactl >/dev/null || { echo "the lab guest needs numactl (apt-get install numactl)" >&2; exit 99; }';

interface Placement {
  cpus: string;
  anon: Record<string, number>;
}

function placement(run: SectionsRun, name: string): Placement {
  return JSON.parse(sectionOk(run, name).stdout.trim().split('\n').at(-1)!) as Placement;
}

/** Share of anonymous pages on each node, in percent. */
function shares(p: Placement, nodes: number): number[] {
  const total = Object.values(p.anon).reduce((a, b) => a + b, 0);
  return Array.from({ length: nodes }, (_, n) => (100 * (p.anon[String(n)] ?? 0)) / total);
}

describe('numakit run on 2 nodes', () => {
  let run: SectionsRun;
  before(async () => {
    run = await runSections(
      TWO_NODE,
      {
        run_bind: `${NUMAKIT} run --cpunodebind=0 --membind=1 -- ${WORKLOAD}`,
        numactl_bind: `${NEED_NUMACTL}; numactl --cpunodebind=0 --membind=1 -- ${WORKLOAD}`,
        run_interleave: `${NUMAKIT} run --interleave=all -- ${WORKLOAD}`,
        numactl_interleave: `${NEED_NUMACTL}; numactl --interleave=all -- ${WORKLOAD}`,
        run_show: `${NUMAKIT} run -N 1 -m 0,1 --show`,
        numactl_show: `${NEED_NUMACTL}; numactl -N 1 -m 0,1 --show`,
        exit_code: `${NUMAKIT} run -m 0 -- sh -c 'exit 42'; echo "rc=$?"`,
        signal: `${NUMAKIT} run -m 0 -- sh -c 'kill -TERM $$'; echo "rc=$?"`,
        pid: `sh -c 'echo "$$"; exec ${NUMAKIT} run -l -- sh -c "echo \\$\\$"'`,
        exec_fail: `${NUMAKIT} run -- numakit-no-such-command; echo "rc=$?"`,
        missing_node: `${NUMAKIT} run --membind=7 -- true; echo "rc=$?"`,
      },
      { timeoutMs: SLOW_GUEST_MS },
    );
  });
  after(() => run?.cleanup());

  it('--cpunodebind=0 --membind=1 places pages and CPUs as numactl does', () => {
    const ours = placement(run, 'run_bind');
    const theirs = placement(run, 'numactl_bind');
    assert.equal(ours.cpus, theirs.cpus);
    assert.equal(ours.cpus, '0-1');
    const [o, t] = [shares(ours, 2), shares(theirs, 2)];
    assert.ok(o[1]! > 95, `numakit: run: ${o[1]!.toFixed(1)}% of anon pages on node 1`);
    assert.ok(Math.abs(o[1]! - t[1]!) < 5, `node 1 share: numakit ${o[1]!.toFixed(1)}%, numactl ${t[1]!.toFixed(1)}%`);
  });

  it('--interleave=all spreads pages over both nodes, like numactl', () => {
    const o = shares(placement(run, 'run_interleave'), 2);
    const t = shares(placement(run, 'numactl_interleave'), 2);
    for (const n of [0, 1]) {
      assert.ok(o[n]! > 35, `numakit: run: node ${n} holds only ${o[n]!.toFixed(1)}%`);
      assert.ok(Math.abs(o[n]! - t[n]!) < 10, `node ${n}: numakit ${o[n]!.toFixed(1)}%, numactl ${t[n]!.toFixed(1)}%`);
    }
  });

  it('--show matches numactl --show', () => {
    assert.equal(sectionOk(run, 'run_show').stdout, sectionOk(run, 'numactl_show').stdout);
  });

  it("exit codes, signals and the pid are the command's own", () => {
    assert.match(sectionOk(run, 'exit_code').stdout, /^rc=42$/m);
    assert.match(sectionOk(run, 'signal').stdout, /^rc=143$/m);
    const [shell, command] = sectionOk(run, 'pid').stdout.trim().split('\n');
    assert.equal(command, shell, 'exec chain kept the pid');
  });

  it('errors: 127 for a command that cannot run, 1 naming a missing node', () => {
    const fail = sectionOk(run, 'exec_fail');
    assert.match(fail.stdout, /^rc=127$/m);
    assert.equal(fail.stderr, "numakit: run: execution of 'numakit-no-such-command': No such file or directory\n");
    const missing = sectionOk(run, 'missing_node');
    assert.match(missing.stdout, /^rc=1$/m);
    assert.match(
      missing.stderr,
      /^numakit: run: invalid node specification '7': node 7 does not exist \(nodes: 0-1\)\n$/,
    );
  });
});

describe('numakit run with a memory-only node', () => {
  let run: SectionsRun;
  before(async () => {
    run = await runSections(
      THREE_NODE_CXL,
      {
        membind_cxl: `${NUMAKIT} run --membind=2 -- ${WORKLOAD}`,
        cpunodebind_cxl: `${NUMAKIT} run --cpunodebind=2 -- true; echo "rc=$?"`,
      },
      { timeoutMs: SLOW_GUEST_MS },
    );
  });
  after(() => run?.cleanup());

  it('--membind to the memory-only node puts the pages there', () => {
    assert.ok(shares(placement(run, 'membind_cxl'), 3)[2]! > 95);
  });

  it('--cpunodebind to it is a clear error', () => {
    const r = sectionOk(run, 'cpunodebind_cxl');
    assert.match(r.stdout, /^rc=1$/m);
    assert.match(r.stderr, /node 2 has no CPUs \(a memory-only node\)/);
  });
});
