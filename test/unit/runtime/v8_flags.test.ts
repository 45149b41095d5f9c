// The agent's V8 flags (src/runtime/v8_flags.ts): which command lines get them, that this Node's
// V8 knows each (an unknown one is an "unrecognized flag" line on the daemon's stderr and no
// effect), and that bin.ts evaluates the module setting them before any other.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { AGENT_V8_FLAGS, v8FlagsFor } from '../../../src/runtime/v8_flags.js';

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
    const r = spawnSync(
      process.execPath,
      ['-e', `require('node:v8').setFlagsFromString(${JSON.stringify(AGENT_V8_FLAGS.join(' '))})`],
      { encoding: 'utf8' },
    );
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
