// The whole-tree mutation test (issue 18): every file a read-only command reads in a shipped
// example is broken (truncated, emptied, NUL-terminated, random bytes, huge numbers, removed,
// replaced by a directory, a symlink loop) and every read-only command that reads it runs on the
// broken tree, in-process through main(). A stack trace, an exit code above 2, a command over
// 10 s, or NaN / undefined / Infinity / a negative size in the output fails.
// To stay within CI's time, each file gets one kind of damage in rotation and the files every
// command depends on (KEY) get all eight; NUMAKIT_MUTATION_ALL=1 breaks every file every way.
import assert from 'node:assert/strict';
import { cpSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { COMMANDS, OVERVIEW } from '../../../src/cli/commands/index.js';
import { openRoot } from '../../../src/sysfs/root.js';
import type { SysRoot } from '../../../src/sysfs/root.js';
import { REPO_DIR, runCommand, runMain } from '../../helpers/cli.js';

/** NUMAKIT_MUTATION_EXAMPLE=NAME breaks another example. */
const EXAMPLE = process.env['NUMAKIT_MUTATION_EXAMPLE'] ?? 'lab-3node-cxl';
/** Every read-only command, with the options that change what it reads or prints. */
const READ_ONLY: string[][] = [
  [],
  ['topo', '--json'],
  ['topo', '--numactl'],
  ['doctor', '--json'],
  ['stat', '-m', '--json'],
  ['stat', '--numastat'],
  ['plan', 'redis'],
];
const KINDS = ['truncate', 'empty', 'nul', 'random', 'huge', 'remove', 'directory', 'loop'] as const;
type Kind = (typeof KINDS)[number];
/** Files (as regular expressions) broken in every way on every run. */
const KEY = [
  /node\/online$/,
  /node\/has_cpu$/,
  /node0\/cpulist$/,
  /node0\/meminfo$/,
  /node0\/distance$/,
  /node0\/numastat$/,
  /cpu\/online$/,
  /^proc\/meminfo$/,
  /numa_node$/,
];
const ALL = process.env['NUMAKIT_MUTATION_ALL'] === '1';

function kindsFor(rel: string, i: number): readonly Kind[] {
  return ALL || KEY.some((k) => k.test(rel)) ? KINDS : [KINDS[i % KINDS.length]!];
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/** Breaks one file of the tree; returns how to put it back. */
function mutate(dir: string, rel: string, kind: Kind, rand: () => number): () => void {
  const p = join(dir, rel);
  const saved = readFileSync(p);
  const restore = () => {
    rmSync(p, { recursive: true, force: true });
    writeFileSync(p, saved);
  };
  const text = saved.toString('utf8');
  rmSync(p, { recursive: true, force: true });
  switch (kind) {
    case 'truncate':
      writeFileSync(p, saved.subarray(0, Math.floor(saved.length / 2)));
      break;
    case 'empty':
      writeFileSync(p, '');
      break;
    case 'nul':
      writeFileSync(p, Buffer.concat([saved, Buffer.from([0, 0])]));
      break;
    case 'random':
      writeFileSync(
        p,
        Buffer.from(Array.from({ length: 1 + Math.floor(rand() * 64) }, () => Math.floor(rand() * 256))),
      );
      break;
    case 'huge':
      writeFileSync(
        p,
        /\d/.test(text) ? text.replace(/\d+/g, '18446744073709551616') : `${text}99999999999999999999999\n`,
      );
      break;
    case 'remove':
      break;
    case 'directory':
      mkdirSync(p);
      break;
    case 'loop':
      symlinkSync(rel.split('/').pop()!, p);
      break;
  }
  return restore;
}

/** Runs `numakit ARGS` on a root object (main() makes its own root; this one records reads). */
async function runWith(root: SysRoot, args: string[]) {
  const entry = args.length === 0 ? OVERVIEW : COMMANDS[args[0]!]!;
  return runCommand(await entry.load(), root, args.slice(1));
}

/** What must never be printed as data. */
const BAD_OUTPUT =
  /\bNaN\b|\bundefined\b|\bInfinity\b|(?<![\w-])-\d+(\.\d+)? ?(B|KiB|MiB|GiB|TiB|kB|MB|GB)\b|"\w*(Bytes|Kb|Mb|MB)": -\d/;

describe(`mutation test: every read-only command on ${EXAMPLE} with each file broken`, () => {
  const base = mkdtempSync(join(tmpdir(), 'numakit-mutation-'));
  const dir = join(base, EXAMPLE);
  cpSync(join(REPO_DIR, 'examples', EXAMPLE), dir, { recursive: true, verbatimSymlinks: true });
  after(() => rmSync(base, { recursive: true, force: true }));

  it('no stack trace, exit <= 2, no command over 10 s, no NaN/undefined/Infinity/negative size', async (t) => {
    // Which files each command reads on the intact tree: a file is broken only for those.
    const readers = new Map<string, string[][]>();
    for (const args of READ_ONLY) {
      const seen = new Set<string>();
      const root = {
        ...openRoot(dir),
        onAccess: (kind: string, rel: string) => void (kind === 'file' && seen.add(rel)),
      };
      const r = await runWith(root, args);
      // plan refuses nodes under its reserve (max(10%, 2 GiB); the lab guests have < 1 GiB a node)
      // with one line naming the numbers: that is its answer on the intact tree, not a failure.
      const refusal = args[0] === 'plan' && r.code === 2 && /GiB/.test(r.err) && r.err.trim().split('\n').length === 1;
      assert.ok(r.code <= 1 || refusal, `${args.join(' ')} on the intact tree: ${r.err}`);
      for (const f of seen) {
        try {
          if (!lstatSync(join(dir, f)).isFile()) continue;
        } catch {
          continue;
        }
        readers.set(f, [...(readers.get(f) ?? []), args]);
      }
    }
    const rand = rng(18);
    let mutations = 0;
    let runs = 0;
    const failures: string[] = [];
    for (const [i, [rel, cmds]] of [...readers].sort().entries()) {
      for (const kind of kindsFor(rel, i)) {
        const restore = mutate(dir, rel, kind, rand);
        mutations++;
        try {
          for (const args of cmds) {
            const t0 = performance.now();
            const r = await runMain(['--root', dir, ...args]);
            const ms = performance.now() - t0;
            runs++;
            const what = `${kind} ${rel}: numakit ${args.join(' ')}`;
            if (r.code > 2) failures.push(`${what}: exit ${r.code}: ${r.err.trim()}`);
            if (/\n\s+at .+:\d+:\d+/.test(r.err) || /internal error/.test(r.err))
              failures.push(`${what}: ${r.err.trim()}`);
            if (ms > 10_000) failures.push(`${what}: took ${(ms / 1000).toFixed(1)} s`);
            const m = BAD_OUTPUT.exec(r.out);
            if (m) failures.push(`${what}: prints '${m[0]}'`);
            if (args.includes('--json') && r.code <= 1 && r.out !== '') {
              try {
                JSON.parse(r.out);
              } catch {
                failures.push(`${what}: --json output is not JSON`);
              }
            }
          }
        } finally {
          restore();
        }
      }
    }
    t.diagnostic(
      `${readers.size} files read by ${READ_ONLY.length} commands; ${mutations} mutated trees; ${runs} command runs`,
    );
    assert.deepEqual(failures, []);
  });
});
