// Shell completion and the man page, generated from the command table: bash completes commands,
// subcommands, options and their values; zsh and fish scripts parse and (fish) complete; the man
// page has every command and option and passes groff and man's warnings.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { COMMANDS } from '../../../src/cli/commands/index.js';
import { runMain } from '../../helpers/cli.js';
import { skipUnlessTools } from '../../helpers/tools.js';

let dir: string;
const scripts: Record<string, string> = {};

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'numakit-completion-'));
  for (const shell of ['bash', 'zsh', 'fish']) {
    const r = await runMain(['completion', shell]);
    assert.equal(r.code, 0, r.err);
    scripts[shell] = join(dir, `numakit.${shell}`);
    writeFileSync(scripts[shell]!, r.out);
  }
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** What bash's completion offers for the words typed so far (the last is being completed). */
function bashComplete(words: string[]): string[] {
  const quoted = words.map((w) => `'${w}'`).join(' ');
  const r = spawnSync(
    'bash',
    [
      '-c',
      `source '${scripts['bash']}'; COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _numakit; printf '%s\\n' "\${COMPREPLY[@]}"`,
    ],
    { encoding: 'utf8' },
  );
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\n').filter((l) => l !== '');
}

describe('bash completion', { skip: skipUnlessTools('bash') }, () => {
  const cases: [string[], string[]][] = [
    [['numakit', 'do'], ['doctor']],
    [['numakit', 'doctor', '--pro'], ['--profile']],
    [
      ['numakit', 'doctor', '--profile', ''],
      [
        'general',
        'spark',
        'database',
        'latency',
        'throughput',
        'jvm',
        'memory-tiering',
        'spark-pinned',
        'batch',
        'tiering',
      ],
    ],
    [['numakit', 'doctor', '--fail-on', 'w'], ['warning']],
    [['numakit', '--example', 'spark'], ['spark-2s']],
    [
      ['numakit', '--example', 'spark-2s', 'to'],
      ['topo', 'top'],
    ],
    [['numakit', 'agent', ''], ['restore']],
    [
      ['numakit', 'agent', 'restore', '--'],
      ['--dry-run', '--state-dir', '--help'],
    ],
    [
      ['numakit', 'plan', 'spark-'],
      ['spark-standalone', 'spark-yarn', 'spark-k8s'],
    ],
    [
      ['numakit', 'completion', ''],
      ['bash', 'zsh', 'fish'],
    ],
    [
      ['numakit', 'topo', '--'],
      ['--json', '--numactl', '--svg', '--xml', '--html', '--only', '--physical', '--logical', '--help'],
    ],
    // The agent's keys with a few allowed values declare them as choices (cli/commands/agent_settings.ts).
    [
      ['numakit', 'agent', '--strategy', ''],
      ['balance', 'consolidate'],
    ],
    [
      ['numakit', 'agent', '--tune', ''],
      ['threads', 'pages', 'both'],
    ],
    [
      ['numakit', 'agent', '--log-format', ''],
      ['text', 'json'],
    ],
  ];
  for (const [words, want] of cases) {
    it(`${words.join(' ')}<TAB>`, () => assert.deepEqual(bashComplete(words), want));
  }

  it('offers every command of the table', () => {
    assert.deepEqual(bashComplete(['numakit', '']).sort(), Object.keys(COMMANDS).sort());
  });
});

describe('zsh and fish completion', () => {
  it('zsh parses the script', { skip: skipUnlessTools('zsh') }, () => {
    const r = spawnSync('zsh', ['-n', scripts['zsh']!], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  });

  it("zsh offers the agent's allowed values", async () => {
    const zsh = (await runMain(['completion', 'zsh'])).out;
    assert.match(zsh, /'--granularity\[threads\\: when its hot threads[^\n]*:value:\(threads process\)'/);
    assert.match(zsh, /'--numa-balancing\[off \(the kernel[^\n]*:value:\(off keep\)'/);
  });

  it('fish parses the script and completes options and values', {
    skip: skipUnlessTools('fish'),
  }, () => {
    const complete = (line: string) => {
      const r = spawnSync('fish', ['--no-config', '-c', `source '${scripts['fish']}'; complete -C '${line}'`], {
        encoding: 'utf8',
      });
      assert.equal(r.status, 0, r.stderr);
      return r.stdout
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => l.split('\t')[0]);
    };
    assert.ok(complete('numakit ').includes('topo'));
    assert.ok(complete('numakit doctor --').includes('--fail-on'));
    assert.deepEqual(complete('numakit doctor --fail-on '), ['critical', 'warning']);
    assert.deepEqual(complete('numakit agent '), ['restore']);
    assert.deepEqual(complete('numakit agent --unit ').sort(), ['cgroup', 'process']);
  });
});

describe('the man page', () => {
  it('has every command and each of its options', async () => {
    const man = (await runMain(['help', '--man'])).out;
    assert.match(man, /^\.TH NUMAKIT 1 /);
    for (const [name, entry] of Object.entries(COMMANDS)) {
      assert.ok(man.includes(`.SS numakit ${name}`), name);
      for (const key of Object.keys((await entry.load()).options))
        assert.ok(man.includes(key.replace(/-/g, '\\-')), `${name}: ${key}`);
    }
  });

  it('passes groff -ww and man --warnings with no warning', {
    skip: skipUnlessTools('groff', 'man'),
  }, async () => {
    const file = join(dir, 'numakit.1');
    writeFileSync(file, (await runMain(['help', '--man'])).out);
    const groff = spawnSync('groff', ['-man', '-z', '-ww', file], { encoding: 'utf8' });
    assert.equal(groff.status, 0);
    assert.equal(groff.stderr, '');
    const man = spawnSync('man', ['--warnings', '-l', file], {
      encoding: 'utf8',
      env: { ...process.env, MANWIDTH: '80', MANPAGER: 'cat', PAGER: 'cat' },
    });
    assert.equal(man.status, 0, man.stderr);
    assert.equal(man.stderr, '');
    assert.match(man.stdout, /numakit doctor \[--profile NAME\]/);
  });
});
