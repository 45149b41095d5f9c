// numakit's syscall layer (src/native, built to dist/native) on a real 4-node kernel: mbind,
// move_pages, migrate_pages and sched_setaffinity do what they claim, as the kernel reports it.
// The guest side is guest-helpers/syscalls.mjs; one boot runs the three scenarios.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sectionOk } from './assert.js';
import { cpusAllowed, pagesPerNode } from './numa_maps.js';
import { guestHelper } from './numakit.js';
import { runSections, type SectionsRun } from './sections.js';
import { FOUR_NODE_ASYM } from './topologies.js';
import { resolveTopology } from './topology.js';

const helper = (args: string) => `node ${guestHelper('syscalls.mjs')} ${args}`;

function json<T>(run: SectionsRun, name: string): T {
  const out = sectionOk(run, name).stdout;
  try {
    return JSON.parse(out) as T;
  } catch {
    throw new Error(`section ${name} printed no JSON:\n${out}`);
  }
}

describe('syscall layer in a 4node-asym guest', () => {
  let run: SectionsRun;
  before(async () => {
    run = await runSections(
      FOUR_NODE_ASYM,
      {
        mbind: helper('mbind 1'),
        migrate: helper('migrate 1 0'),
        affinity: helper('affinity 2'),
      },
      { timeoutMs: 300_000 },
    );
  });
  after(() => run?.cleanup());

  it('mbind to node 1: every page lands on node 1 (move_pages query and numa_maps agree)', () => {
    const r = json<{ pages: number; start: string; moveQuery: Record<string, number>; numaMapsLine: string | null }>(
      run,
      'mbind',
    );
    assert.ok(r.pages >= 4000, `only ${r.pages} pages`);
    assert.deepEqual(r.moveQuery, { 1: r.pages });
    assert.ok(r.numaMapsLine, `no numa_maps line starts at ${r.start}`);
    assert.match(r.numaMapsLine, /\bbind:1\b/);
    assert.deepEqual(pagesPerNode(r.numaMapsLine), { 1: r.pages });
  });

  it("migrate_pages 1 -> 0 moves a child's pages (numa_maps before/after)", () => {
    const r = json<{ notMoved: number; before: string; after: string }>(run, 'migrate');
    const before = pagesPerNode(r.before, { anonOnly: true });
    const afterMove = pagesPerNode(r.after, { anonOnly: true });
    const on1 = before[1] ?? 0;
    assert.ok(on1 >= 16384, `the child had only ${on1} anonymous pages on node 1 before: ${JSON.stringify(before)}`);
    assert.ok((afterMove[1] ?? 0) <= r.notMoved + on1 * 0.05, `still on node 1 after: ${JSON.stringify(afterMove)}`);
    assert.ok(
      (afterMove[0] ?? 0) >= (before[0] ?? 0) + on1 * 0.95,
      `node 0 did not gain the pages: ${JSON.stringify({ before, afterMove })}`,
    );
  });

  it("setting another process's affinity to node 2's CPUs shows in /proc/PID/status", () => {
    const r = json<{ cpus: number[]; getAffinity: number[]; statusBefore: string; statusAfter: string }>(
      run,
      'affinity',
    );
    const node2 = resolveTopology(FOUR_NODE_ASYM).nodes[2]?.cpus ?? [];
    assert.deepEqual(r.cpus, node2);
    assert.notDeepEqual(cpusAllowed(r.statusBefore), node2);
    assert.deepEqual(cpusAllowed(r.statusAfter), node2);
    assert.deepEqual(r.getAffinity, node2);
  });
});
