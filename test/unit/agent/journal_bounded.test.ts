// The agent's journal stays bounded over a long life: within a run, entries of threads that are
// gone are dropped (restored ones too), and across restarts, finished agent change sets beyond
// the newest KEEP_FINISHED_AGENT_SETS are deleted at start, never one with something to restore
// and never apply's.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import { createChangeSet, listChangeSets } from '../../../src/actuate/journal.js';
import { openSystem } from '../../../src/actuate/system.js';
import { DEFAULT_AGENT } from '../../../src/agent/config.js';
import { AGENT_SOURCE, AgentJournal } from '../../../src/agent/journal.js';
import { KEEP_FINISHED_AGENT_SETS, rotateAgentSets } from '../../../src/agent/journal_rotate.js';
import { runAgent } from '../../../src/agent/run.js';
import type { ThreadAffinityEntry } from '../../../src/model/change.js';
import { eachWithFakeMachine, fakeClock, type FakeMachine } from './tree.js';

let m: FakeMachine;
let stateDir: string;
eachWithFakeMachine((machine, dir) => {
  m = machine;
  stateDir = dir;
});

const DEAD_PID = 2 ** 22 + 1;
const thread = (tid: number, state: ThreadAffinityEntry['state']): ThreadAffinityEntry => ({
  pid: tid,
  tid,
  start: 7,
  comm: 'x',
  old: '0-3',
  value: '1',
  state,
});

describe("the agent's journal within a run", () => {
  it('an entry of a thread that is gone is dropped, restored or not; a live one is kept', () => {
    const j = new AgentJournal(stateDir, new Date(0));
    j.beforeAffinity([
      { pid: 10, tid: 10, start: 7, comm: 'a', old: [0, 1, 2, 3], cpus: [1] },
      { pid: 11, tid: 11, start: 7, comm: 'b', old: [0, 1, 2, 3], cpus: [1] },
      { pid: 12, tid: 12, start: 7, comm: 'c', old: [0, 1, 2, 3], cpus: [1] },
    ]);
    // 11's action failed and was put back: its entry is 'restored'.
    j.revertAffinity([{ tid: 11, start: 7, cpus: [0, 1, 2, 3] }]);
    j.prune((e) => e.tid === 12);
    assert.deepEqual(
      (j.changeSet.threads ?? []).map((e) => e.tid),
      [12],
    );
    assert.deepEqual(
      (listChangeSets(stateDir)[0]!.threads ?? []).map((e) => e.tid),
      [12],
      'saved',
    );
  });
});

describe("the agent's journal across restarts", () => {
  function finished(n: number) {
    return createChangeSet(
      stateDir,
      {
        source: AGENT_SOURCE,
        status: 'rolled-back',
        pid: DEAD_PID,
        planned: 0,
        entries: [],
        files: [],
        threads: [thread(100 + n, 'restored')],
      },
      new Date(n * 1000),
    ).id;
  }

  it('finished agent sets beyond the newest 8 go; a set to restore and apply sets stay', () => {
    const apply = createChangeSet(
      stateDir,
      { source: 'profile database', status: 'rolled-back', pid: DEAD_PID, planned: 0, entries: [], files: [] },
      new Date(0),
    ).id;
    const done = Array.from({ length: 12 }, (_, i) => finished(i));
    const leftover = createChangeSet(
      stateDir,
      {
        source: AGENT_SOURCE,
        status: 'applied',
        pid: DEAD_PID,
        planned: 0,
        entries: [],
        files: [],
        threads: [thread(300, 'written')],
      },
      new Date(0),
    ).id;
    const gone = rotateAgentSets(stateDir);
    assert.deepEqual(gone, done.slice(0, 12 - KEEP_FINISHED_AGENT_SETS));
    assert.deepEqual(
      listChangeSets(stateDir).map((cs) => cs.id),
      [apply, ...done.slice(12 - KEEP_FINISHED_AGENT_SETS), leftover],
    );
  });

  it('the agent rotates at start: after 20 runs the journal holds at most 8 finished sets and its own', async () => {
    for (let i = 0; i < 20; i++) finished(i);
    const signals = new EventEmitter();
    const done = runAgent(
      { ...DEFAULT_AGENT, stateDir },
      {
        root: m.root,
        sys: openSystem(m.root, { isRoot: true }),
        ops: m.ops,
        log: () => {},
        signals,
        pageSize: 4096,
        selfPid: 99999,
        clock: fakeClock(),
        now: () => 0,
        sleep: async () => {
          signals.emit('SIGTERM');
        },
      },
    );
    assert.equal(await done, 0);
    assert.equal(listChangeSets(stateDir).length, KEEP_FINISHED_AGENT_SETS + 1);
  });
});
