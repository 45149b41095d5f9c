// The house has floors (docs/architecture.md): a file imports only from its own room or from a
// room on a lower floor, never up a floor or across to another room on its floor, and no set of
// files imports itself round in a circle. model/, policy/ and render/ are pure: no node:* module,
// nothing from an impure room. Every file under src/ is walked: static `import`/`export ... from`,
// side-effect `import '...'`, dynamic `import('...')` with a literal path, and the worker files
// started by `new URL('./x.js', import.meta.url)`; type-only imports count too (a type belongs
// to the floor that owns it).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/** Lowest floor first. A room may import its own files and the rooms on the floors below. */
export const FLOORS: readonly (readonly string[])[] = [
  ['model'], // the vocabulary: ids, cpusets, Topology, Finding, Change, plain data
  ['runtime'], // the Node runtime and numakit's own files on the host: the single executable, V8 flags, heap pacing, private paths
  ['sysfs'], // one reader per kernel file, under an injected root
  ['native'], // the koffi bindings: system calls beside the kernel files (their sample formats)
  ['discover'], // SysRoot -> Topology, samples, doctor's and plan's inputs (collectors: PMU sampling)
  ['policy'], // pure decisions
  ['render'], // pure text, JSON, SVG, config files
  ['actuate'], // the only code that writes to the system
  ['fleet', 'bench', 'serve'], // capabilities composed from the floors below, independent of each other
  ['agent'], // the daemon (its --metrics serves through serve/)
  ['cli'], // commands, the only place argv is read
];

/** Rooms that import no node:* module and nothing from a room outside this list. */
export const PURE = new Set(['model', 'policy', 'render']);

const SRC = fileURLToPath(new URL('../../../src/', import.meta.url));
const CODE = /\.(ts|mts|mjs)$/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return CODE.test(e.name) && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Comments out: a path named in a comment is no import. Strings are kept (they hold the paths). */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

const STATIC = /^\s*(?:import|export)\s[^;]*?\bfrom\s*(['"])([^'"]+)\1/gm;
const SIDE_EFFECT = /^\s*import\s*(['"])([^'"]+)\1/gm;
const DYNAMIC = /\bimport\s*\(\s*(['"])([^'"]+)\1\s*\)/g;
const WORKER_URL = /\bnew URL\(\s*(['"])([^'"]+\.(?:js|mjs|ts))\1\s*,\s*import\.meta\.url\s*\)/g;

/** Every module specifier a source text names, in the four forms above. */
export function specifiers(text: string): string[] {
  const code = withoutComments(text);
  return [STATIC, SIDE_EFFECT, DYNAMIC, WORKER_URL].flatMap((re) => [...code.matchAll(re)].map((m) => m[2]!));
}

/** A relative specifier -> the source file it names ('./x.js' is x.ts under src/); null when none. */
function resolveSource(from: string, spec: string): string | null {
  const base = resolve(dirname(from), spec);
  for (const candidate of [base, base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), join(base, 'index.ts')])
    if (CODE.test(candidate) && existsSync(candidate)) return candidate;
  return null;
}

export interface Graph {
  /** file (relative to src/) -> files it imports (relative to src/). */
  readonly edges: Map<string, string[]>;
  /** file -> bare specifiers (node:fs, zod ...). */
  readonly packages: Map<string, string[]>;
}

export function importGraph(src: string): Graph {
  const edges = new Map<string, string[]>();
  const packages = new Map<string, string[]>();
  for (const file of sourceFiles(src)) {
    const rel = relative(src, file).split(sep).join('/');
    const local: string[] = [];
    const bare: string[] = [];
    for (const spec of specifiers(readFileSync(file, 'utf8'))) {
      if (!spec.startsWith('.')) {
        bare.push(spec);
        continue;
      }
      const target = resolveSource(file, spec);
      // A URL to something that is not code (commands.json, web assets) is data, not an import.
      if (target !== null) local.push(relative(src, target).split(sep).join('/'));
    }
    edges.set(rel, local);
    packages.set(rel, bare);
  }
  return { edges, packages };
}

export const roomOf = (file: string): string => (file.includes('/') ? file.slice(0, file.indexOf('/')) : '');

export function floorOf(room: string): number {
  return FLOORS.findIndex((f) => f.includes(room));
}

/** Imports that go up a floor or across to another room of the same floor: "from -> to (why)". */
export function climbs(g: Graph): string[] {
  const out: string[] = [];
  for (const [from, tos] of g.edges)
    for (const to of tos) {
      const [a, b] = [roomOf(from), roomOf(to)];
      if (a === b) continue;
      const [fa, fb] = [floorOf(a), floorOf(b)];
      if (fb > fa) out.push(`${from} -> ${to} (${a}/ is below ${b}/)`);
      else if (fb === fa) out.push(`${from} -> ${to} (${a}/ and ${b}/ share a floor)`);
      else if (PURE.has(a) && !PURE.has(b)) out.push(`${from} -> ${to} (${a}/ is pure; ${b}/ is not)`);
    }
  return out;
}

const BUILTINS = new Set(builtinModules);

/** node:* (or bare builtin) imports from the pure rooms. */
export function impure(g: Graph): string[] {
  return [...g.packages].flatMap(([file, specs]) =>
    PURE.has(roomOf(file))
      ? specs.filter((s) => s.startsWith('node:') || BUILTINS.has(s)).map((s) => `${file} -> ${s}`)
      : [],
  );
}

/** Strongly connected sets of files (Tarjan): each import cycle once, its files sorted. */
export function cycles(g: Graph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of g.edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const set: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      set.push(w);
    } while (w !== v);
    if (set.length > 1 || (g.edges.get(v) ?? []).includes(v)) found.push(set.sort());
  };
  for (const v of g.edges.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('the import graph of src/', () => {
  const graph = importGraph(SRC);

  it('sees every file and its imports (the walker reads what it claims to)', () => {
    assert.ok(graph.edges.size > 300, `only ${graph.edges.size} files under src/`);
    // One of each form: static, type-only, dynamic, worker URL.
    assert.ok(graph.edges.get('cli/main.ts')!.includes('cli/commands/index.ts'));
    assert.ok(graph.edges.get('cli/commands/index.ts')!.includes('cli/commands/topo.ts'));
    assert.ok(graph.edges.get('policy/plan/machine.ts')!.includes('model/plan_input.ts'));
    assert.ok(graph.edges.get('fleet/pool.ts')!.includes('fleet/worker.ts'));
    assert.ok(graph.packages.get('sysfs/read.ts')!.some((s) => s.startsWith('node:')));
  });

  it('puts every room of src/ on a floor', () => {
    const rooms = new Set([...graph.edges.keys()].map(roomOf));
    const homeless = [...rooms].filter((r) => floorOf(r) < 0);
    assert.deepEqual(homeless, [], `rooms on no floor (add them to FLOORS and docs/architecture.md): ${homeless}`);
  });

  it('has no import cycle', () => {
    assert.deepEqual(cycles(graph), []);
  });

  it('has no import that climbs a floor or crosses to a room on the same floor', () => {
    assert.deepEqual(climbs(graph), []);
  });

  it('keeps model/, policy/ and render/ free of node:* modules', () => {
    assert.deepEqual(impure(graph), []);
  });
});

describe('the walker itself', () => {
  it('reads each import form and skips comments', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from '../b.js';",
      'import {',
      '  c,',
      '  d,',
      "} from './cd.js';",
      "export { e } from './e.js';",
      "export * from './f.js';",
      "import './side.js';",
      "const g = await import('./g.js');",
      "const w = new URL('./worker.js', import.meta.url);",
      "// import { no } from './comment.js';",
      "/* const z = await import('./block.js'); */",
      "const text = 'a word from nowhere';",
    ].join('\n');
    assert.deepEqual(specifiers(text).sort(), [
      '../b.js',
      './a.js',
      './cd.js',
      './e.js',
      './f.js',
      './g.js',
      './side.js',
      './worker.js',
    ]);
  });

  it('finds a cycle, a climb, a crossing and an impure import', () => {
    const g: Graph = {
      edges: new Map([
        ['policy/a.ts', ['policy/b.ts', 'sysfs/x.ts']],
        ['policy/b.ts', ['policy/a.ts']],
        ['sysfs/x.ts', ['discover/y.ts']],
        ['bench/z.ts', ['serve/s.ts']],
        ['serve/s.ts', []],
        ['discover/y.ts', []],
      ]),
      packages: new Map([['render/r.ts', ['node:fs', 'yaml']]]),
    };
    assert.deepEqual(cycles(g), [['policy/a.ts', 'policy/b.ts']]);
    assert.deepEqual(climbs(g), [
      'policy/a.ts -> sysfs/x.ts (policy/ is pure; sysfs/ is not)',
      'sysfs/x.ts -> discover/y.ts (sysfs/ is below discover/)',
      'bench/z.ts -> serve/s.ts (bench/ and serve/ share a floor)',
    ]);
    assert.deepEqual(impure(g), ['render/r.ts -> node:fs']);
  });
});
