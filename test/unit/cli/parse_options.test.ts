// The shared option parser and the help generator: one table of cases each.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { optionLabel, renderHelp } from '../../../src/cli/help.js';
import type { Command } from '../../../src/cli/options.js';
import { parseOptions, resolveSubcommand } from '../../../src/cli/parse_options.js';
import { UnknownOptionError, UsageError } from '../../../src/model/errors.js';

const restore: Command = {
  summary: 'undo',
  synopsis: [''],
  description: 'Undo.',
  options: { 'state-dir': { type: 'string', value: 'DIR', help: 'where' } },
  run: async () => 0,
};
const cmd: Command = {
  summary: 'a test command',
  synopsis: ['[--json | --text] [-v] [--level L] [-m]'],
  description: 'Does a test.',
  options: {
    json: { type: 'boolean', help: 'JSON' },
    text: { type: 'boolean', help: 'text' },
    verbose: { type: 'boolean', short: 'v', help: 'more' },
    level: { type: 'string', value: 'L', choices: ['low', 'high'], help: 'how much', group: 'tuning' },
    m: { type: 'boolean', short: 'm', shortOnly: true, help: 'numastat-style' },
    tag: { type: 'string', value: 'T', multiple: true, help: 'repeatable' },
  },
  conflicts: [['json', 'text']],
  subcommands: { restore },
  run: async () => 0,
};

describe('parseOptions', () => {
  it('parses what is declared', () => {
    const p = parseOptions(cmd, ['--json', '-v', '--level', 'high', '-m', '--tag', 'a', '--tag=b'], 'test');
    assert.deepEqual({ ...p.values }, { json: true, verbose: true, level: 'high', m: true, tag: ['a', 'b'] });
    assert.equal(p.help, false);
    assert.equal(parseOptions(cmd, ['-h'], 'test').help, true);
  });

  const refused: [string[], RegExp, boolean][] = [
    [['--bogus'], /^test: unknown option '--bogus'; see 'numakit test --help'$/, true],
    [['-x'], /^test: unknown option '-x'/, true],
    [['--m'], /^test: unknown option '--m'/, true],
    [['--json=1'], /^test: --json takes no value$/, false],
    [['--level'], /^test: --level needs a value \(L\)$/, false],
    [['--level', '-v'], /^test: --level needs a value; one starting with '-' is written --level=VALUE$/, false],
    [['--level', 'mid'], /^test: --level mid: expected one of low, high$/, false],
    [['--json', '--text'], /^test: --json and --text cannot be used together$/, false],
    [['stray'], /^test: unexpected argument 'stray' \(did you mean 'numakit test restore'\?\)$/, false],
  ];
  for (const [args, message, unknown] of refused) {
    it(`refuses ${args.join(' ')}: exit 2, one line`, () => {
      assert.throws(
        () => parseOptions(cmd, args, 'test'),
        (e: unknown) => {
          assert.ok(e instanceof UsageError);
          assert.equal(e.exitCode, 2);
          assert.equal(e instanceof UnknownOptionError, unknown);
          assert.match(e.message, message);
          return true;
        },
      );
    });
  }

  it('positional arguments: at most max, at least min', () => {
    const one: Command = { ...cmd, subcommands: undefined, positionals: { name: 'ID', min: 1 } };
    assert.deepEqual(parseOptions(one, ['x'], 'test').positionals, ['x']);
    assert.throws(() => parseOptions(one, [], 'test'), /^UsageError: test: missing ID/);
    assert.throws(() => parseOptions(one, ['x', 'y'], 'test'), /test: unexpected argument 'y' \(at most 1 ID\)/);
    assert.throws(
      () => parseOptions({ ...one, positionals: undefined }, ['x'], ''),
      /^UsageError: unexpected argument 'x'$/,
    );
  });

  it('--help wins over other checks, as git does', () => {
    assert.equal(parseOptions(cmd, ['--json', '--text', '--help'], 'test').help, true);
  });

  it('subcommands are followed to the command that runs', () => {
    const r = resolveSubcommand(cmd, ['restore', '--state-dir', '/x'], 'test');
    assert.equal(r.cmd, restore);
    assert.equal(r.name, 'test restore');
    assert.deepEqual(r.args, ['--state-dir', '/x']);
  });
});

describe('help', () => {
  it('labels: long, short and long, short only, with a value', () => {
    assert.equal(optionLabel('json', { type: 'boolean', help: '' }), '--json');
    assert.equal(optionLabel('verbose', { type: 'boolean', short: 'v', help: '' }), '-v, --verbose');
    assert.equal(optionLabel('m', { type: 'boolean', short: 'm', shortOnly: true, help: '' }), '-m');
    assert.equal(
      optionLabel('s', { type: 'string', short: 's', shortOnly: true, value: '[NODE]', help: '' }),
      '-s[NODE]',
    );
    assert.equal(optionLabel('level', { type: 'string', value: 'L', help: '' }), '--level L');
  });

  it('renders usage, subcommands, options by group, globals and the exit statuses', () => {
    const text = renderHelp('test', { ...cmd, exit: { 1: 'a finding' } });
    assert.equal(
      text,
      `usage: numakit test [--json | --text] [-v] [--level L] [-m]

Does a test.

commands:
  restore  undo (numakit test restore --help)

options:
  --json         JSON
  --text         text
  -v, --verbose  more
  -m             numastat-style
  --tag T        repeatable
  -h, --help     print this help and exit

tuning:
  --level L      how much

global options (before or after the command): --root DIR|FILE.tar.gz, --example NAME, --no-color; see numakit --help

exit status:
  0   success
  1   a finding
  2   usage error: an unknown, contradictory or badly formed option or argument
  70  internal error: a bug in numakit (NUMAKIT_DEBUG=1 shows where)
`,
    );
  });
});
