// numakit agent on a real 4-node kernel (4node-asym: one CPU per node, distances 10/16/22/28).
// One guest boot runs every scenario through guest-helpers/agent_scenario.mjs, which starts
// misplaced workloads (memory bound to one node by numactl, then unbound, so nothing marks them
// as user-placed), runs the agent, and measures locality the way the kernel shows it
// (numa_maps pages per node, the CPUs each thread ran on). Under TCG on a 2-core host the
// scenarios take a few minutes idle (longer when loaded: migrations crawl), so sizes are small
// and timeouts long; a scenario stops as soon as it has its answer.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sectionOk } from './assert.js';
import { guestHelper } from './numakit.js';
import { runSections, type SectionsRun } from './sections.js';
import { FOUR_NODE_ASYM } from './topologies.js';

const INTERVAL_S = 5;
/** How long the idle cost is measured (s). */
const IDLE_S = 30;
const scenario = (name: string, args: string) =>
  `node ${guestHelper('agent_scenario.mjs')} numakit ${name} --interval ${INTERVAL_S}s ${args}`;
// agent_workload[.]mjs: the scenario runner's own command line holds these agent options.
const ONLY = "--agent '--include agent_workload[.]mjs";

interface Final {
  locality: number;
  hotLocality: number | null;
  runNodes: number[];
  affinity: Record<string, string>;
  affinityBefore: Record<string, string>;
}
interface Measured {
  t95: Record<string, number | null>;
  /** The main thread's own locality (held 2 s). */
  hot95: Record<string, number | null>;
  readyAfter: number | null;
  final: Record<string, Final>;
  pagesMoved: number;
  affinityAfterExit: Record<string, Record<string, string>>;
  exitCode: number | null;
  log: string;
  /** The least free memory each node had while measured (MiB). */
  nodeFreeMinMiB: Record<string, number>;
  /** The scenario runner's own CPU seconds (load on the machine the tuner fits processes into). */
  runnerCpuSeconds: number;
}

function json<T>(run: SectionsRun, name: string): T {
  const out = sectionOk(run, name).stdout;
  try {
    return JSON.parse(out.trim().split('\n').at(-1)!) as T;
  } catch {
    throw new Error(`section ${name} printed no JSON:\n${out}`);
  }
}

const decisions = (log: string) =>
  log
    .split('\n')
    .filter((l) => l.startsWith('{"time"') && !l.includes('"event"'))
    .map((l) => JSON.parse(l) as { pid: number; comm: string; outcome: string; reason: string });

describe('numakit agent in a 4node-asym guest', () => {
  let run: SectionsRun;
  before(async () => {
    run = await runSections(
      FOUR_NODE_ASYM,
      {
        // Node 1's CPU is kept busy: with it idle, the scheduler alone moves the process there.
        // "present": the process runs first, then the agent starts (the bench's harder protocol).
        misplaced: scenario('misplaced', `--mib 96 --timeout 90 ${ONLY}'`),
        competing: scenario('competing', `--mib 120 --timeout 150 ${ONLY}'`),
        // Never reaches 95% (that is the point): runs to its timeout, long enough for 4+ passes.
        leftalone: scenario('leftalone', `--mib 120 --timeout 40 ${ONLY} --min-rss 100M --exclude batchjob'`),
        // numactl-pinned workloads (deterministic placement), managed with --override-pins; with
        // --tune threads the threads must leave node 0 for their memory (an affinity that changes):
        sigkill: scenario('sigkill', `--mib 96 --timeout 90 ${ONLY} --override-pins --tune threads'`),
        exitmid: scenario('exit-mid', `--mib 150 --timeout 90 ${ONLY} --tune pages --override-pins'`),
        // A hot thread and three helpers (2 CPUs): more than one node, though the hot thread fits one.
        helpers: scenario('helpers', `--mib 48 --timeout 90 ${ONLY}'`),
        // A cgroup v2 leaf (CPUs 1-2) with a busy and an idle process, memory on node 3.
        cgroup: scenario('cgroup', `--mib 64 --timeout 90 --agent '--unit cgroup --include ^/lab/app$'`),
        // A budget of 20 MB/s makes the 200 MB move last 10 s: the SIGTERM comes 1 s into it.
        sigterm: scenario('sigterm-mid', `--mib 200 --timeout 90 ${ONLY} --max-migrate-mbps 20'`),
        // Where moving is waste, the agent first (in service, its defaults: the watch on), and its
        // cost idle against numad's, each a few seconds (churn stays in the bench:
        // bench/agent-vs-numad.mjs, docs/agent.md "Scenarios"). A busy 64 MB process that exits
        // 2.5 s after it started:
        burst: scenario('burst', `--mib 64 --burst 2.5 ${ONLY}'`),
        // Three busy processes of 140 MB (420 MB: more than a 384 MiB node), memory on nodes 1,
        // 2 and 3, all started on node 0's CPU (numad's own job), the agent first:
        fill: scenario('fill', `--mib 140 --timeout 60 --tuner-first ${ONLY}'`),
        // 500 MB, more than a node, its memory on nodes 1 and 2, started on node 0:
        large: scenario('large', `--mib 500 --timeout 40 --tuner-first ${ONLY}'`),
        // The agent's CPU over 30 s idle (from a second after ready: two of its longest sleeps,
        // --max-interval 15 s, so its steady state shows, not only the first passes), and numad's
        // in the same guest:
        idle: scenario('idle', `--timeout ${IDLE_S} --tuner-first ${ONLY}'`),
        numadidle: `node ${guestHelper('agent_scenario.mjs')} numad idle --timeout ${IDLE_S} --tuner-first`,
      },
      { timeoutMs: 1_500_000 },
    );
  });
  after(() => run?.cleanup());

  it('misplaced, present (96 MB on node 1, threads on node 0, node 1 busy, then the agent starts): >= 95% locality within 2 intervals of the agent being ready, plus the copy time; SIGTERM restores every thread', () => {
    const r = json<Measured>(run, 'misplaced');
    const t = r.t95['busy'] ?? null;
    assert.ok(t !== null && r.readyAfter !== null, `never reached 95%: ${JSON.stringify(r.final)}\n${r.log}`);
    // The kernel's copy time is not the agent's: under TCG on a loaded host a page costs ms
    // (a TLB shootdown per page on 6.1), so the time migrate_pages took (logged) is added.
    const copy = decisions(r.log).reduce((s, x) => s + ((x as { migrateMs?: number }).migrateMs ?? 0), 0) / 1000;
    assert.ok(
      t - r.readyAfter <= 2 * INTERVAL_S + copy + 0.5,
      `95% ${t - r.readyAfter} s after ready (interval ${INTERVAL_S} s, copying ${copy} s)\n${r.log}`,
    );
    assert.ok(r.final['busy']!.locality >= 0.95);
    assert.ok(r.pagesMoved >= 96 * 256 * 0.9, `only ${r.pagesMoved} pages moved: its memory had to move`);
    assert.equal(r.exitCode, 0);
    assert.deepEqual(
      r.affinityAfterExit['busy'],
      r.final['busy']!.affinityBefore,
      "every thread's affinity back after SIGTERM",
    );
  });

  it('helper threads (a hot thread and helpers that push the process over a node): the hot thread ends >= 95% local', () => {
    const r = json<Measured>(run, 'helpers');
    const f = r.final['busy']!;
    assert.ok(r.hot95['busy'] !== null, `the hot thread never held 95%: ${JSON.stringify(f)}\n${r.log}`);
    assert.ok((f.hotLocality ?? 0) >= 0.95, `hot thread ${f.hotLocality} local at the end\n${r.log}`);
    assert.ok(
      decisions(r.log).some((x) => x.outcome === 'moved'),
      r.log,
    );
  });

  it('--unit cgroup: a cgroup leaf is placed as one unit within its cpuset, and the log names it', () => {
    const r = json<Measured>(run, 'cgroup');
    const moved = decisions(r.log).filter((x) => x.outcome === 'moved') as { cgroup?: string; nodes?: number[] }[];
    assert.ok(moved.length > 0 && moved.every((x) => x.cgroup === '/lab/app'), r.log);
    const node = moved.at(-1)!.nodes!;
    assert.ok(node.length === 1 && (node[0] === 1 || node[0] === 2), `within CPUs 1-2 (nodes 1, 2): node ${node}`);
    for (const [name, f] of Object.entries(r.final)) {
      assert.deepEqual(
        [...new Set(Object.values(f.affinity))],
        [String(node[0])],
        `${name}: every thread on node ${node[0]}'s CPU`,
      );
      const pages = (f as Final & { pages: Record<string, number> }).pages;
      const all = Object.values(pages).reduce((a, b) => a + b, 0);
      assert.ok(
        (pages[String(node[0])] ?? 0) >= all * 0.95,
        `${name}: memory on node ${node[0]}: ${JSON.stringify(pages)}`,
      );
    }
  });

  it('competing: two processes sized for one node each end on different nodes', () => {
    const r = json<Measured>(run, 'competing');
    const a = r.final['first']!;
    const b = r.final['second']!;
    assert.ok(a.locality >= 0.95 && b.locality >= 0.95, `${JSON.stringify(r.final)}\n${r.log}`);
    assert.notDeepEqual(a.runNodes, b.runNodes);
  });

  it('left alone: a small process, a user-pinned one, an excluded name', () => {
    const r = json<Measured>(run, 'leftalone');
    const d = decisions(r.log);
    assert.deepEqual(
      d.filter((x) => ['moved', 'partial'].includes(x.outcome)),
      [],
      r.log,
    );
    assert.ok(
      d.some((x) => x.outcome === 'pinned-cpus'),
      `no pinned-cpus line:\n${r.log}`,
    );
    assert.ok(
      d.some((x) => x.outcome === 'excluded'),
      `no excluded line:\n${r.log}`,
    );
    for (const [name, f] of Object.entries(r.final))
      assert.deepEqual(f.affinity, f.affinityBefore, `${name}'s affinity changed`);
  });

  it("after SIGKILL of the agent, `numakit agent restore` brings every thread's affinity and numa_balancing back exactly", () => {
    interface State {
      affinity: Record<string, string>;
      numaBalancing: string;
    }
    const r = json<{
      movedSeen: boolean;
      before: State;
      during: State;
      after: State;
      restore: { code: number; stdout: string; stderr: string };
      log: string;
    }>(run, 'sigkill');
    assert.ok(r.movedSeen, r.log);
    assert.equal(r.before.numaBalancing, '1');
    assert.equal(r.during.numaBalancing, '0', 'the agent switched AutoNUMA off');
    assert.notDeepEqual(r.during.affinity, r.before.affinity, `the agent had changed affinities\n${r.log}`);
    assert.equal(r.restore.code, 0, r.restore.stderr);
    assert.deepEqual(r.after.affinity, r.before.affinity);
    assert.equal(r.after.numaBalancing, '1');
  });

  it("SIGTERM in the middle of a 200 MB move: within 1 s the agent has restored and said so (and exits), every thread's affinity and numa_balancing back, the move journaled as stopped part way", (ctx) => {
    interface State {
      affinity: Record<string, string>;
      numaBalancing: string;
      pages?: Record<string, number>;
    }
    const r = json<{
      caught: boolean;
      exitMs: number;
      outputAfterSignal: [number, string][];
      exitCode: number;
      before: State;
      during: State;
      after: State;
      moves: { state: string; movedBytes: number; plannedBytes: number; to: number[] }[] | null;
      log: string;
    }>(run, 'sigterm');
    assert.ok(r.caught, `no move seen in the journal:\n${r.log}`);
    // Within 1 s of the signal, everything is back and said: the agent writes its exit line only
    // after the last restore, and the runner timestamps it as it arrives. The process's end, as the
    // runner sees it, also carries the guest's own lag in seeing a child exit (a killed `sleep` is
    // seen up to ~0.5 s late on a busy TCG guest), so it gets a looser bound.
    const said = r.outputAfterSignal.find(([, text]) => text.includes('exit: restored'))?.[0];
    const detail = `its output after the signal (ms, text): ${JSON.stringify(r.outputAfterSignal)}\n${r.log}`;
    ctx.diagnostic(`restored and said so ${said ?? 'never'} ms after SIGTERM, exited ${r.exitMs} ms after`);
    // Where the time went (each line the agent wrote after the signal, ms after it): kept in the
    // lab's output when it passes too, since a slow stop on a loaded CI host is seen nowhere else.
    for (const [ms, text] of r.outputAfterSignal) ctx.diagnostic(`  ${ms} ms: ${text}`);
    assert.ok(
      said !== undefined && said <= 1000,
      `restored and said so ${said ?? 'never'} ms after SIGTERM; ${detail}`,
    );
    assert.ok(r.exitMs <= 3000, `exited ${r.exitMs} ms after SIGTERM; ${detail}`);
    assert.equal(r.exitCode, 0);
    assert.deepEqual(r.after.affinity, r.before.affinity);
    assert.equal(r.before.numaBalancing, '1');
    assert.equal(r.during.numaBalancing, '0');
    assert.equal(r.after.numaBalancing, '1');
    const m = r.moves?.[0];
    assert.equal(m?.state, 'stopped', r.log);
    assert.ok(m!.movedBytes > 0 && m!.movedBytes < m!.plannedBytes * 0.5, `stopped part way: ${JSON.stringify(m)}`);
    assert.match(r.log, /"outcome":"stopped"/);
  });

  it('a process that exits in the middle of its migration costs a log line, nothing else', () => {
    const r = json<{
      caught: boolean;
      pagesAtStart: Record<string, number>;
      aliveAfter: boolean;
      exitCode: number | null;
      pid: number;
      log: string;
    }>(run, 'exitmid');
    assert.ok(r.caught, `no migration seen (pages at start ${JSON.stringify(r.pagesAtStart)}):\n${r.log}`);
    assert.ok(r.aliveAfter, `the agent died:\n${r.log}`);
    assert.equal(r.exitCode, 0, r.log);
    assert.doesNotMatch(r.log, /error in a pass|Error:|at .*\.js:\d+/);
    // One line for the move it was in (its copy may have waited a window first: 'confirming').
    const mine = decisions(r.log).filter((x) => x.pid === r.pid && x.outcome !== 'confirming');
    assert.equal(mine.length, 1, r.log);
  });

  // The candidates of a pass are placed as one whole fit (policy/agent/fit.ts) and the agent's
  // own CPU counts as idle (self_cpu.ts). Held in the whole file at host load 1-5.5; at load
  // 13-15 it did not: the workloads start seconds apart, so each is placed alone in its pass,
  // and its CPU need read 0.9-1.3 (Node's helper threads at start-up) against 0.4-0.8 idle on
  // its memory's node, so its memory was copied (docs/agent.md, "Fill: the whole fit").
  it('fill: three busy processes that together exceed a node each end >= 95% local on a node of their own, their memory left where it was', (ctx) => {
    const r = json<Measured>(run, 'fill');
    // The tuner runs first: each process starts under numactl (bound) and unbinds once allocated.
    ctx.diagnostic(
      `95% local after (s, from each start): ${JSON.stringify(r.t95)}; runner CPU ${r.runnerCpuSeconds} s`,
    );
    const finals = Object.entries(r.final);
    assert.equal(finals.length, 3);
    for (const [name, f] of finals) assert.ok(f.locality >= 0.95, `${name}: ${JSON.stringify(f)}\n${r.log}`);
    const nodes = finals.map(([, f]) => f.runNodes.join(','));
    assert.equal(new Set(nodes).size, 3, `each on a node of its own (none starves one): ${nodes}\n${r.log}`);
    // Threads went to the memory: a few pages (the Node runtime's own) at most, not a process's.
    assert.ok(r.pagesMoved < 140 * 256 * 0.1, `${r.pagesMoved} pages moved\n${r.log}`);
    for (const [n, mib] of Object.entries(r.nodeFreeMinMiB)) assert.ok(mib >= 16, `node ${n} down to ${mib} MiB free`);
  });

  it('larger than a node: its threads go to the node holding most of its memory, nothing copied, no move back and forth', () => {
    const r = json<Measured>(run, 'large');
    const f = r.final['busy']!;
    const moves = decisions(r.log).filter((x) => ['moved', 'partial', 'stopped'].includes(x.outcome));
    assert.ok(moves.length <= 1, `moved ${moves.length} times\n${r.log}`);
    assert.ok(r.pagesMoved < 500 * 256 * 0.1, `${r.pagesMoved} pages moved\n${r.log}`);
    // As local as the node holding the most of its memory makes it. How its memory splits over
    // nodes 1 and 2 depends on node 1's free memory when it allocated (about 65/35 in a fresh
    // guest, 50/50 after the scenarios before it): a fixed 50% is a coin toss on an even split.
    const pages = Object.values((f as Final & { pages: Record<string, number> }).pages);
    const most = Math.max(...pages) / pages.reduce((a, b) => a + b, 0);
    assert.ok(
      f.locality >= most - 0.02,
      `${f.locality} local, its most-holding node has ${most}: ${JSON.stringify(f)}\n${r.log}`,
    );
  });

  it('burst: a busy process that exits 2.5 s after it started is not moved', () => {
    const r = json<{ movedIt: boolean; pagesWhileAlive: number; livedSeconds: number; log: string }>(run, 'burst');
    assert.equal(r.movedIt, false, r.log);
    assert.ok(r.pagesWhileAlive < 64 * 256 * 0.1, `${r.pagesWhileAlive} pages moved while it lived\n${r.log}`);
  });

  it('idle: the agent, its watch on, costs no more CPU than numad idle in the same guest', (ctx) => {
    const cpu = (name: string) => json<{ tunerCpuManaging: number }>(run, name).tunerCpuManaging;
    const [idle, numad] = [cpu('idle'), cpu('numadidle')];
    ctx.diagnostic(`CPU s over ${IDLE_S} s idle: agent ${idle}, numad ${numad}`);
    // A few clock ticks (10 ms each) of slack: both are a few ticks a pass, and numad's varies
    // run to run (0.08-0.15 CPU s over 30 s in the same guest). Over 15 s the agent had made two
    // passes and read 0.05-0.11 against numad's 0.03-0.08 (twice at the slack's edge).
    assert.ok(idle <= numad + 0.05, `CPU s over ${IDLE_S} s: agent ${idle}, numad ${numad}`);
  });
});
