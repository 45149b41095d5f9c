// Every command README.md and docs/*.md show runs here, so a documented example can never fail
// again: each numakit command, in the order its document shows it, in a temporary directory
// (with the snapshots, change file and fleet directory the documents name), its
// exit code and a line of its output checked (expectations.ts). Documents added later are read
// the same way. What cannot run in a unit test (it builds numakit, acts on this or other
// machines, or runs until stopped) is in not_run.ts, each with why; a command that is neither
// runnable nor listed fails. Change files shown in ```yaml blocks must parse.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parseChangeFile } from '../../../src/policy/tuning/change_file.js';
import { REPO_DIR, runMain } from '../../helpers/cli.js';
import { EXPECT, PLACEHOLDERS } from './expectations.js';
import { docCommands, shellWords, type DocCommand } from './extract.js';
import { NOT_RUN, notRun } from './not_run.js';

const DOCS = [
  'README.md',
  ...readdirSync(join(REPO_DIR, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];
const text = (doc: string) => readFileSync(join(REPO_DIR, doc), 'utf8');
const ALL: DocCommand[] = DOCS.flatMap((d) => docCommands(d, text(d)));
const base = mkdtempSync(join(tmpdir(), 'numakit-docs-'));
const home = process.cwd();

/** The YAML blocks that are change files. */
function changeFiles(doc: string): { line: number; yaml: string }[] {
  return [...text(doc).matchAll(/^```yaml\n([\s\S]*?)^```/gm)]
    .filter((m) => /^changes:/m.test(m[1]!))
    .map((m) => ({ line: text(doc).slice(0, m.index).split('\n').length + 1, yaml: m[1]! }));
}

async function must(argv: string[]): Promise<void> {
  const r = await runMain(argv);
  assert.equal(r.code, 0, `${argv.join(' ')}: ${r.err}`);
}

/** What the documents name, made once and linked into each document's directory. */
async function fixtures(dir: string): Promise<void> {
  process.chdir(dir);
  await must(['--example', 'spark-2s', 'snapshot', 'snapdir']);
  await must(['--example', 'spark-2s', 'snapshot', 'snap.tar.gz']);
  mkdirSync('gathered');
  for (const ex of ['spark-2s', 'epyc-nps4']) await must(['--example', ex, 'snapshot', `gathered/${ex}.tar.gz`]);
  symlinkSync('gathered', 'fleet');
  writeFileSync('tune.yaml', changeFiles('docs/apply.md')[0]!.yaml);
}

const FIXTURES = join(base, 'fixtures');
before(async () => {
  mkdirSync(FIXTURES);
  await fixtures(FIXTURES);
  process.chdir(home);
});
after(() => {
  process.chdir(home);
  rmSync(base, { recursive: true, force: true });
});

function argvOf(c: DocCommand): { argv: string[]; into: string | null } {
  const e = EXPECT[c.text] ?? {};
  let words = shellWords(c.text)
    .slice(1)
    .map((w) => PLACEHOLDERS[w] ?? e.subst?.[w] ?? w);
  let into: string | null = null;
  const gt = words.indexOf('>');
  if (gt >= 0) {
    into = words[gt + 1] ?? null;
    words = [...words.slice(0, gt), ...words.slice(gt + 2)];
  }
  const onRoot = words.includes('--root') || words.includes('--example');
  return { argv: onRoot || e.real ? words : ['--example', 'spark-2s', ...words], into };
}

/** Runs one documented command in the current directory and checks its exit code and a line of its output. */
async function check(c: DocCommand): Promise<void> {
  const where = `${c.file}:${c.line}: ${c.text}`;
  const e = EXPECT[c.text] ?? {};
  const { argv, into } = argvOf(c);
  const t0 = Date.now();
  const r = await runMain(argv);
  // NUMAKIT_DOCS_TIMES=1 prints what each command took.
  if (process.env['NUMAKIT_DOCS_TIMES'] === '1') console.log(`# ${Date.now() - t0} ms ${c.text}`);
  assert.ok((e.codes ?? [e.code ?? 0]).includes(r.code), `${where}: exit ${r.code}\n${r.out}${r.err}`);
  if (into !== null) writeFileSync(into, r.out);
  const written = e.file ?? into;
  const shown = written === null ? `${r.out}${r.err}` : readFileSync(written, 'utf8');
  const line = e.line ?? /\S/;
  assert.match(
    shown,
    new RegExp(line.source, `${line.flags.replace('m', '')}m`),
    `${where}: output\n${shown.slice(0, 2000)}${r.err}`,
  );
}

/** A command shown again (the same text in another document) ran already: each runs once. */
const ran = new Set<string>();

for (const doc of DOCS) {
  const cmds = ALL.filter((c) => c.file === doc);
  if (cmds.length === 0 && changeFiles(doc).length === 0) continue;
  test(`${doc}: every command it shows runs (or is listed in not_run.ts with why)`, async () => {
    // Each document in a directory of its own, the prepared files linked into it.
    const dir = join(base, doc.replace(/\W/g, '_'));
    mkdirSync(dir);
    for (const f of readdirSync(FIXTURES)) symlinkSync(join(FIXTURES, f), join(dir, f));
    process.chdir(dir);
    try {
      for (const c of cmds) {
        if (c.kind === 'synopsis' || notRun(c.text)) continue;
        assert.notEqual(
          c.kind,
          'other',
          `${c.file}:${c.line}: ${c.text}: a command of another program; make it runnable or add it to test/unit/docs/not_run.ts with why`,
        );
        if (ran.has(c.text)) continue;
        ran.add(c.text);
        await check(c);
      }
      for (const f of changeFiles(doc))
        assert.doesNotThrow(
          () => parseChangeFile(f.yaml, `${doc}:${f.line}`),
          `${doc}:${f.line}: the change file parses`,
        );
    } finally {
      process.chdir(home);
    }
  });
}

test('the documents show commands, and the not-run list is short, reasoned and current', () => {
  const run = ALL.filter((c) => c.kind === 'numakit' && !notRun(c.text));
  assert.ok(run.length >= 50, `${run.length} runnable commands`);
  for (const n of NOT_RUN) {
    assert.ok(n.why.length > 40, `${n.match}: says why`);
    assert.ok(
      ALL.some((c) => n.match.test(c.text)),
      `${n.match} matches no documented command any more: remove it`,
    );
  }
  for (const key of Object.keys(EXPECT))
    assert.ok(
      ALL.some((c) => c.text === key),
      `expectations.ts: '${key}' is not in any document any more`,
    );
  const skipped = ALL.filter((c) => notRun(c.text));
  console.log(
    `# ${run.length} documented commands run; ${skipped.length} not run (${NOT_RUN.length} reasons); ${ALL.filter((c) => c.kind === 'synopsis').length} synopsis lines`,
  );
});
