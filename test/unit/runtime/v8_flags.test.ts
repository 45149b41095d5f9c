// The agent's V8 flags (src/runtime/v8_flags.ts): which command lines get them, that this Node's
// V8 knows each (an unknown one is an "unrecognized flag" line on the daemon's stderr and no
// effect), and that bin.ts evaluates the module setting them before any other. topo's and
// doctor's on a large machine: from which size, and that this V8 knows them too.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  AGENT_V8_FLAGS,
  LARGE_MACHINE_CPUS,
  LARGE_MACHINE_V8_FLAGS,
  v8FlagsFor,
  v8FlagsForMachine,
} from '../../../src/runtime/v8_flags.js';

/** stderr of a Node that sets `flags` with setFlagsFromString ('' when V8 knows them all). */
function setFlagsStderr(flags: readonly string[]): { status: number | null; stderr: string } {
  return spawnSync(
    process.execPath,
    ['-e', `require('node:v8').setFlagsFromString(${JSON.stringify(flags.join(' '))})`],
    { encoding: 'utf8' },
  );
}

describe('v8FlagsFor', () => {
  const cases: Array<[string, string[], readonly string[]]> = [
    ['the agent', ['agent'], AGENT_V8_FLAGS],
    ['the agent with options', ['agent', '--advise', '--interval', '5s'], AGENT_V8_FLAGS],
    ['global options before it', ['--root', '/tmp/x', 'agent', '--once'], AGENT_V8_FLAGS],
    ['agent restore (short-lived)', ['agent', 'restore', '--dry-run'], []],
    ['another command', ['topo', '--json'], []],
    ['no command', [], []],
  ];
  for (const [name, argv, want] of cases) it(name, () => assert.deepEqual(v8FlagsFor(argv), want));
});

describe('AGENT_V8_FLAGS', () => {
  it('are all known to this V8 (setFlagsFromString says nothing)', () => {
    const r = setFlagsStderr(AGENT_V8_FLAGS);
    assert.equal(r.status, 0);
    assert.equal(r.stderr, '');
  });
  it('are set by the first module bin.ts evaluates', () => {
    const imports = readFileSync(new URL('../../../src/cli/bin.ts', import.meta.url), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('import '));
    assert.match(imports[0] ?? '', /^import '\.\/v8_early\.js';/);
  });
});

describe('v8FlagsForMachine (topo, doctor)', () => {
  it('a large machine gets the young generation held, a smaller one nothing (no node:v8 to load)', () => {
    assert.deepEqual(v8FlagsForMachine(1792), LARGE_MACHINE_V8_FLAGS);
    assert.deepEqual(v8FlagsForMachine(LARGE_MACHINE_CPUS), LARGE_MACHINE_V8_FLAGS);
    assert.deepEqual(v8FlagsForMachine(LARGE_MACHINE_CPUS - 1), []);
    assert.deepEqual(v8FlagsForMachine(64), []);
    assert.deepEqual(v8FlagsForMachine(0), []);
  });
  it('are all known to this V8', () => {
    const r = setFlagsStderr(LARGE_MACHINE_V8_FLAGS);
    assert.equal(r.status, 0);
    assert.equal(r.stderr, '');
  });
});
