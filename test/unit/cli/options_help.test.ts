// Every command's --help against its parser. The commands are walked from the command table
// (src/cli/commands/index.ts) with their subcommands, so a command is covered the moment it is
// registered. For each: every option its help documents is accepted by the parser main uses
// (with a value when the help shows one, without one otherwise), and every option the parser
// accepts is documented: each letter and each long name used anywhere in numakit (or common
// elsewhere) that the help does not list is refused as an unknown option, exit 2.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { COMMANDS, OVERVIEW } from '../../../src/cli/commands/index.js';
import { EXIT_TABLE } from '../../../src/cli/exit_status.js';
import { GLOBAL_OPTIONS } from '../../../src/cli/globals.js';
import { GLOBALS_LINE } from '../../../src/cli/help.js';
import type { Command } from '../../../src/cli/options.js';
import { parseCommandArgs } from '../../../src/cli/parse_options.js';
import { VERSION } from '../../../src/cli/version.js';
import { UnknownOptionError, UsageError } from '../../../src/model/errors.js';
import { REPO_DIR, runMain } from '../../helpers/cli.js';

interface Documented {
  /** -v, --verbose, -s (for -s[NODE]). */
  readonly flags: string[];
  readonly value: 'none' | 'required' | 'attached';
  readonly sample: string;
}

/** Options as a help text lists them: lines "  -v, --verbose VALUE  text" between the description and the global options. */
export function documentedOptions(help: string): Documented[] {
  const body = help.slice(0, help.indexOf(GLOBALS_LINE) < 0 ? help.length : help.indexOf(GLOBALS_LINE));
  const out: Documented[] = [];
  for (const line of body.split('\n')) {
    const m = /^  (-[^ ].*?)(?: {2,}|$)/.exec(line);
    if (!m) continue;
    const words = m[1]!.split(/,? /);
    const flags = words.filter((w) => /^--?[A-Za-z0-9]/.test(w)).map((w) => w.replace(/\[.*$/, ''));
    const attached = /^-[A-Za-z]\[/.test(m[1]!);
    const valueWord = words.find((w) => !/^--?[A-Za-z0-9]/.test(w));
    const choices = /: ([a-z]+) \| ([a-z]+)/.exec(line)?.[1];
    out.push({
      flags,
      value: attached ? 'attached' : valueWord !== undefined ? 'required' : 'none',
      sample: choices ?? '1',
    });
  }
  return out;
}

/** Flags written in the usage lines. */
function synopsisFlags(help: string): string[] {
  const usage = help.split('\n\n')[0]!;
  return [...usage.matchAll(/(?<![\w-])(--?[A-Za-z][\w-]*(?:\.[\w-]+)*)/g)].map((m) => m[1]!);
}

async function walk(): Promise<[string, Command][]> {
  const out: [string, Command][] = [];
  const add = (name: string, cmd: Command) => {
    out.push([name, cmd]);
    for (const [sub, c] of Object.entries(cmd.subcommands ?? {})) add(`${name} ${sub}`, c);
  };
  add('', await OVERVIEW.load());
  for (const [name, entry] of Object.entries(COMMANDS)) add(name, await entry.load());
  return out;
}

const commands = await walk();
const helps = new Map<string, string>();
for (const [name] of commands)
  helps.set(name, (await runMain(name === '' ? ['--help'] : [...name.split(' '), '--help'])).out);

/** Long names to try on every command: each command's, the global ones, and common ones elsewhere. */
const LONG_NAMES = new Set([
  ...[...helps.values()].flatMap((h) => documentedOptions(h).flatMap((d) => d.flags.filter((f) => f.startsWith('--')))),
  ...Object.keys(GLOBAL_OPTIONS).map((k) => `--${k}`),
  ...[
    '--verbose',
    '--quiet',
    '--output',
    '--format',
    '--all',
    '--force',
    '--dry-run',
    '--yes',
    '--json',
    '--debug',
    '--color',
    '--watch',
    '--interval',
    '--node',
    '--nodes',
    '--pid',
    '--config',
    '--version',
    '--profile',
    '--out',
    '--state-dir',
    '--numastat',
    '--procs',
    '--markdown',
  ],
]);

function outcome(cmd: Command, name: string, args: string[]): 'ok' | 'unknown' | 'usage' {
  try {
    parseCommandArgs(cmd, args, name);
    return 'ok';
  } catch (e) {
    if (e instanceof UnknownOptionError) return 'unknown';
    if (e instanceof UsageError) return 'usage';
    throw e;
  }
}

describe('every command: --help against the parser', () => {
  for (const [name, cmd] of commands) {
    const label = name === '' ? 'numakit (the overview)' : `numakit ${name}`;
    const help = helps.get(name)!;
    const documented = documentedOptions(help);
    const flags = new Set(documented.flatMap((d) => d.flags));
    const global = new Set(
      Object.entries(GLOBAL_OPTIONS).flatMap(([k, s]) => [`--${k}`, ...(s.short ? [`-${s.short}`] : [])]),
    );

    it(`${label}: --help prints usage, the global options and the exit statuses`, () => {
      assert.match(help, name === '' ? /^usage: numakit / : new RegExp(`^usage: numakit ${name}`));
      if (name !== '') assert.ok(help.includes(GLOBALS_LINE), 'the global options line');
      for (const code of Object.keys(EXIT_TABLE))
        assert.match(help, new RegExp(`^  ${code} +\\S`, 'm'), `exit status ${code}`);
      assert.ok(flags.has('--help') && flags.has('-h'), '-h, --help is listed');
    });

    it(`${label}: no usage line says the command's name twice ("numakit bench ab ab")`, () => {
      const last = name.split(' ').at(-1)!;
      for (const line of help.split('\n\n')[0]!.split('\n'))
        if (name !== '') assert.ok(!line.includes(`${name} ${last} `) && !line.endsWith(`${name} ${last}`), line);
    });

    it(`${label}: the usage lines name only documented options`, () => {
      for (const f of synopsisFlags(help))
        assert.ok(flags.has(f) || global.has(f), `${f} is in the usage but not among the options`);
    });

    it(`${label}: every documented option is accepted, with a value exactly when it shows one`, () => {
      for (const d of documented) {
        for (const f of d.flags.filter((x) => x !== '-h' && x !== '--help' && !(name === '' && global.has(x)))) {
          if (d.value === 'none') {
            assert.notEqual(outcome(cmd, name, [f]), 'unknown', `${f} is documented but refused as unknown`);
            if (f.startsWith('--')) assert.equal(outcome(cmd, name, [`${f}=x`]), 'usage', `${f} takes no value`);
          } else if (d.value === 'attached') {
            assert.notEqual(outcome(cmd, name, [f]), 'unknown', `${f} is documented but refused`);
            assert.notEqual(
              outcome(cmd, name, [`${f}${d.sample}`]),
              'unknown',
              `${f}${d.sample} is documented but refused`,
            );
          } else {
            assert.equal(outcome(cmd, name, [f]), 'usage', `${f} without its value is a usage error`);
            assert.notEqual(
              outcome(cmd, name, [f, d.sample]),
              'unknown',
              `${f} ${d.sample} is documented but refused as unknown`,
            );
          }
        }
      }
    });

    it(`${label}: no undocumented option is accepted`, () => {
      for (const c of 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789') {
        if (flags.has(`-${c}`)) continue;
        assert.equal(outcome(cmd, name, [`-${c}`]), 'unknown', `-${c} is accepted but not documented`);
      }
      const longs = [...flags].filter((f) => f.startsWith('--'));
      const shortOnly = Object.entries(cmd.options)
        .filter(([, s]) => s.shortOnly)
        .map(([k]) => `--${k}`);
      for (const f of new Set([...LONG_NAMES, ...shortOnly, '--no-such-option'])) {
        // A unique prefix of a documented option is numactl's getopt_long for run (its help says so).
        if (flags.has(f) || longs.some((l) => l.startsWith(f))) continue;
        assert.equal(outcome(cmd, name, [f]), 'unknown', `${f} is accepted but not documented`);
      }
    });
  }
});

describe('the command table', () => {
  it("each entry's summary is the command's own", async () => {
    for (const [name, entry] of Object.entries(COMMANDS))
      assert.equal(entry.summary, (await entry.load()).summary, name);
    assert.equal(OVERVIEW.summary, (await OVERVIEW.load()).summary);
  });

  it('each summary is written once, in src/cli/command_list.ts', () => {
    const src = join(REPO_DIR, 'src');
    const texts = readdirSync(src, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => [f, readFileSync(join(src, f), 'utf8')] as const);
    for (const entry of [...Object.values(COMMANDS), OVERVIEW]) {
      // A string literal in either quote ("" where the summary holds an apostrophe).
      const literals = [`'${entry.summary}'`, `"${entry.summary}"`];
      const where = texts.filter(([, t]) => literals.some((l) => t.includes(l))).map(([f]) => f);
      assert.deepEqual(where, [join('cli', 'command_list.ts')], entry.summary);
    }
  });

  it('the README has the exit status table', () => {
    const readme = readFileSync(join(REPO_DIR, 'README.md'), 'utf8');
    for (const [code, meaning] of Object.entries(EXIT_TABLE))
      assert.ok(readme.includes(`| ${code} | ${meaning} |`), `README: | ${code} | ${meaning} |`);
  });

  it('--version is the package version', async () => {
    const pkg = JSON.parse(readFileSync(join(REPO_DIR, 'package.json'), 'utf8')) as { version: string };
    assert.equal(VERSION, pkg.version);
    assert.equal((await runMain(['--version'])).out, `numakit ${pkg.version}\n`);
  });
});
