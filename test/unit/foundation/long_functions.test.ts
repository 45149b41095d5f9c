// A ratchet on function length (house style: a function over ~40 lines is a sign to split): no
// function in src/ is over 80 lines unless it is on the allow-list below, and the list only
// shrinks. Lengths are measured by scripts/long-functions.mjs on the TypeScript AST (first token
// to closing brace, nested functions included).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { it } from 'node:test';
import { REPO_DIR } from '../../helpers/cli.js';

const LIMIT = 80;

/**
 * "file name" -> the most lines that function may have until it is split. An entry whose function
 * is at or under the limit (or gone) fails the test until it is removed; never add one.
 */
const ALLOWED: ReadonlyMap<string, number> = new Map([['src/agent/metrics.ts startMetrics', 99]]);
/** The list's size when it was last shrunk: lower it with each entry removed, never raise it. */
const MOST_ALLOWED = 1;

interface LongFunction {
  readonly file: string;
  readonly line: number;
  readonly name: string;
  readonly lines: number;
}

function functionsOver(lines: number): LongFunction[] {
  const r = spawnSync(process.execPath, [join('scripts', 'long-functions.mjs'), '--over', String(lines), '--json'], {
    cwd: REPO_DIR,
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as LongFunction[];
}

it(`no function in src/ is over ${LIMIT} lines but the allow-listed, none longer than listed; the list only shrinks`, () => {
  const found = functionsOver(LIMIT);
  const problems = found.flatMap((f) => {
    const allowed = ALLOWED.get(`${f.file} ${f.name}`);
    if (allowed === undefined) return [`${f.file}:${f.line} ${f.name}: ${f.lines} lines (split it into named steps)`];
    return f.lines > allowed
      ? [`${f.file}:${f.line} ${f.name}: ${f.lines} lines, more than its allowed ${allowed}`]
      : [];
  });
  const over = new Set(found.map((f) => `${f.file} ${f.name}`));
  const stale = [...ALLOWED.keys()]
    .filter((k) => !over.has(k))
    .map((k) => `${k}: no longer over ${LIMIT} lines: remove it from ALLOWED and lower MOST_ALLOWED`);
  assert.deepEqual([...problems, ...stale], []);
  assert.ok(
    ALLOWED.size <= MOST_ALLOWED,
    `ALLOWED has ${ALLOWED.size} entries, at most ${MOST_ALLOWED}: the list only shrinks`,
  );
});
