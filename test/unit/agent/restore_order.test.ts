// The agent's restore (what its stop waits for): every thread's affinity and numa_balancing are
// put back first, then the outcome is journaled in one write, then the lines that say so.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { listChangeSets } from '../../../src/actuate/journal.js';
import { openSystem } from '../../../src/actuate/system.js';
import { AgentJournal } from '../../../src/agent/journal.js';
import { restoreAgentSet } from '../../../src/agent/restore.js';
import { opensForWrite, withFileFaults } from '../../helpers/file_faults.js';
import { busy, eachWithFakeMachine, type FakeMachine } from './tree.js';

let m: FakeMachine;
let stateDir: string;
eachWithFakeMachine((machine, dir) => {
  m = machine;
  stateDir = dir;
});

const ALL = [0, 1, 2, 3];

it('agent restore: affinities, then numa_balancing, then one journal write, then its lines', () => {
  m.add(
    busy(200, 'spin', 400, 1, 0, {
      threads: [
        { tid: 200, ticks: 0, cpu: 0, start: 7, cpus: ALL },
        { tid: 201, ticks: 0, cpu: 0, start: 8, cpus: ALL },
      ],
    }),
  );
  const sys = openSystem(m.root, { isRoot: true });
  const journal = new AgentJournal(stateDir, new Date(0));
  assert.equal(journal.setSysctl(sys, 'kernel.numa_balancing', '0', 'test'), '1');
  const todo = [200, 201].map((tid, i) => ({ pid: 200, tid, start: 7 + i, comm: 'spin', old: ALL, cpus: [1] }));
  journal.beforeAffinity(todo);
  for (const t of todo) m.ops.setAffinity(t.tid, t.cpus);
  journal.afterAffinity(todo);

  const events: string[] = [];
  const ops = {
    ...m.ops,
    setAffinity: (tid: number, cpus: readonly number[]) => {
      events.push(`affinity ${tid}`);
      m.ops.setAffinity(tid, cpus);
    },
  };
  const r = withFileFaults(
    (c) => {
      if (c.op === 'rename' && c.path.includes(`${stateDir}/journal/`)) events.push('journal');
      if (opensForWrite(c) && c.path.endsWith('kernel/numa_balancing')) events.push('numa_balancing');
      return undefined;
    },
    () => restoreAgentSet(sys, journal.changeSet, { stateDir, ops, log: (l) => void events.push(`log ${l}`) }),
    { noSync: true },
  );
  assert.deepEqual(events, [
    'affinity 201',
    'affinity 200',
    'numa_balancing',
    'journal',
    'log restored the CPU affinity of 2 thread(s)',
    'log restored /proc/sys/kernel/numa_balancing: 1',
  ]);
  assert.equal(r.threads, 2);
  assert.equal(readFileSync(join(m.dir, 'proc/sys/kernel/numa_balancing'), 'utf8').trim(), '1');
  assert.deepEqual(
    m.procs.get(200)!.threads.map((t) => t.cpus.join(',')),
    ['0,1,2,3', '0,1,2,3'],
  );
  // The one write holds the whole outcome.
  const [cs] = listChangeSets(stateDir);
  assert.equal(cs!.status, 'rolled-back');
  assert.deepEqual(
    cs!.threads!.map((t) => t.state),
    ['restored', 'restored'],
  );
  assert.deepEqual(
    cs!.entries.map((e) => e.state),
    ['restored'],
  );
});
