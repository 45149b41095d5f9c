// The agent's journal under faults: a corrupt journal file never keeps the agent from starting or
// `agent restore` from working; a journal write that fails mid-run stops the agent, which puts
// back every affinity and numa_balancing it changed before it exits.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { listChangeSets, readJournal } from '../../../src/actuate/journal.js';
import { openSystem } from '../../../src/actuate/system.js';
import { DEFAULT_AGENT, type AgentConfig } from '../../../src/agent/config.js';
import { AgentJournal } from '../../../src/agent/journal.js';
import { restoreLeftovers } from '../../../src/agent/restore.js';
import { runAgent } from '../../../src/agent/run.js';
import { withFileFaults } from '../../helpers/file_faults.js';
import { busy, eachWithFakeMachine, type FakeMachine } from './tree.js';

let m: FakeMachine;
let stateDir: string;
let lines: string[];
eachWithFakeMachine((machine, dir) => {
  m = machine;
  stateDir = dir;
  lines = [];
});

const cfg = (o: Partial<AgentConfig> = {}): AgentConfig => ({ ...DEFAULT_AGENT, stateDir, ...o });
const knob = () => readFileSync(join(m.dir, 'proc/sys/kernel/numa_balancing'), 'utf8').trim();
const corrupt = () => {
  mkdirSync(join(stateDir, 'journal'), { recursive: true });
  writeFileSync(join(stateDir, 'journal', '1.json'), '{"version":1,"id":"1","entries":[{');
};

/** Runs the agent until it has acted once (or `stop` says so), then SIGTERM; resolves to its outcome. */
async function runUntil(
  o: Partial<AgentConfig>,
  onReady: () => void = () => {},
): Promise<{ code: number | null; error: Error | null }> {
  const signals = new EventEmitter();
  let t = 0;
  const done = runAgent(cfg({ intervalMs: 20, ...o }), {
    root: m.root,
    sys: openSystem(m.root, { isRoot: true }),
    ops: m.ops,
    log: (l) => void lines.push(l),
    signals,
    pageSize: 4096,
    now: () => t,
    selfPid: 99999,
    onReady: () => {
      onReady();
      t = 5000;
      m.tick(5, [1]);
    },
  }).then(
    (code) => ({ code, error: null }),
    (error: Error) => ({ code: null, error }),
  );
  for (let i = 0; i < 400 && m.calls.length === 0; i++)
    await Promise.race([done, new Promise((r) => setTimeout(r, 5))]);
  signals.emit('SIGTERM');
  return done;
}

describe('agent: a corrupt journal file', () => {
  it('does not keep the agent from starting: it is set aside and named in the log', async () => {
    corrupt();
    m.add(busy(200, 'spin', 400, 1, 0));
    const r = await runUntil({});
    assert.deepEqual(r, { code: 0, error: null });
    assert.match(
      lines.join('\n'),
      /journal\/1\.json: corrupt journal file \(not valid JSON.*\); set aside as .*corrupt\/1\.json/,
    );
    assert.deepEqual(m.calls.slice(0, 1), ['setAffinity 200 0']);
    assert.deepEqual(readJournal(stateDir).setAside, ['1.json']);
  });

  it("does not keep agent restore from restoring a killed agent's set", () => {
    m.add(busy(200, 'spin', 400, 1, 0));
    const journal = new AgentJournal(stateDir, new Date(0));
    const sys = openSystem(m.root, { isRoot: true });
    journal.setSysctl(sys, 'kernel.numa_balancing', '0', 'test');
    const cs = listChangeSets(stateDir)[0]!;
    writeFileSync(join(stateDir, 'journal', `${cs.id}.json`), JSON.stringify({ ...cs, pid: 2147483646 })); // its agent is gone
    writeFileSync(join(stateDir, 'journal', '99.json'), 'garbage');
    const warned: string[] = [];
    const r = restoreLeftovers(sys, { stateDir, ops: m.ops, warn: (l) => warned.push(l) });
    assert.deepEqual(
      r.map((x) => [x.changeSet.id, x.sysctls]),
      [[cs.id, ['/proc/sys/kernel/numa_balancing']]],
    );
    assert.equal(knob(), '1');
    assert.match(warned.join('\n'), /99\.json: corrupt journal file/);
  });
});

describe('agent: its journal fails mid-run', () => {
  for (const [k, what] of [
    [1, 'before the affinity is set'],
    [2, 'after the affinity was set'],
  ] as const) {
    it(`EPERM on the journal write ${what}: the agent stops and puts everything back`, async () => {
      m.add(busy(200, 'spin', 400, 1, 0));
      let armed = false;
      let n = 0;
      const r = await withFileFaults(
        (c) => (armed && c.op === 'open' && c.path.includes(`${stateDir}/journal/.`) && ++n >= k ? 'EPERM' : undefined),
        () => runUntil({}, () => void (armed = true)),
      );
      assert.equal(r.code, null);
      assert.match(
        r.error!.message,
        /^agent stopped: cannot write the journal: .*open failed: not permitted \(EPERM\); it puts back what it changed before it exits$/,
      );
      assert.equal(knob(), '1', 'numa_balancing is back');
      assert.deepEqual(m.procs.get(200)!.threads[0]!.cpus, [0, 1, 2, 3], 'the affinity is back');
      assert.deepEqual(
        m.calls.filter((c) => c.startsWith('setAffinity')),
        k === 1 ? [] : ['setAffinity 200 0', 'setAffinity 200 0,1,2,3'],
      );
      assert.match(
        lines.at(-1)!,
        k === 1
          ? /exit: restored 0 thread affinities and \/proc\/sys\/kernel\/numa_balancing/
          : /exit: restored 1 thread affinity and \/proc\/sys\/kernel\/numa_balancing/,
      );
    });
  }
});

describe("agent: the state directory's disk fills up while it runs", () => {
  it('ENOSPC from the first journal write after ready on: it stops, puts everything back, says the journal could not record that; agent restore afterwards finds it all back', async () => {
    m.add(busy(200, 'spin', 400, 1, 0));
    let full = false;
    const r = await withFileFaults(
      (c) =>
        full && c.path.includes(`${stateDir}/journal/`) && (c.op === 'open' || c.op === 'write') ? 'ENOSPC' : undefined,
      () => runUntil({}, () => void (full = true)),
    );
    assert.equal(r.code, null);
    assert.match(
      r.error!.message,
      /^agent stopped: cannot write the journal: .*\(ENOSPC\); it puts back what it changed before it exits$/,
    );
    assert.equal(knob(), '1', 'numa_balancing is back');
    assert.deepEqual(m.procs.get(200)!.threads[0]!.cpus, [0, 1, 2, 3], 'the affinity is back');
    assert.deepEqual(
      m.calls.filter((c) => c.startsWith('setAffinity')),
      [],
      'nothing changed once the journal could not say so',
    );
    assert.match(
      lines.at(-1)!,
      /^exit: restored 0 thread affinities and \/proc\/sys\/kernel\/numa_balancing; the journal could not record it \(.*ENOSPC.*\): 'numakit agent restore' will find it all back$/,
    );
    // The disk has room again: the set still says what was changed, and a restore finds it back.
    const sets = listChangeSets(stateDir);
    assert.equal(sets.length, 1);
    const res = restoreLeftovers(openSystem(m.root, { isRoot: true }), { stateDir, ops: m.ops });
    assert.equal(res.length, 1);
    assert.deepEqual(res[0]!.failures, []);
    assert.equal(knob(), '1');
    assert.equal(listChangeSets(stateDir)[0]!.status, 'rolled-back');
  });
});

describe('agent: kernel.numa_balancing cannot be written', () => {
  for (const errno of ['EPERM', 'EINVAL', 'EBUSY', 'EIO']) {
    it(`${errno}: the agent does not start, says why, and leaves nothing changed or journaled as pending`, async () => {
      m.add(busy(200, 'spin', 400, 1, 0));
      // One failing write (the fake's regular file is emptied by O_TRUNC first: the exit restore puts it back).
      let once = true;
      const r = await withFileFaults(
        (c) => {
          if (c.op !== 'write' || !c.path.endsWith('kernel/numa_balancing') || !once) return undefined;
          once = false;
          return errno;
        },
        () => runUntil({}),
      );
      assert.match(
        r.error?.message ?? '',
        new RegExp(`/proc/sys/kernel/numa_balancing: cannot write '0': .*\\(${errno}`),
      );
      assert.equal(knob(), '1');
      assert.deepEqual(m.calls, []);
      assert.deepEqual(
        listChangeSets(stateDir).map((cs) => cs.status),
        ['rolled-back'],
      );
    });
  }
});
