// The trees of the hwloc oracle (docs/topo.md, "Equal to hwloc"): the shipped examples, the test
// fixtures (test/fixtures/hwloc-lab/ holds the lab's captures), the cgroup mount layouts laid
// over lab-2node, and the generated shapes of test/fixtures/hwloc_shapes.ts, written on demand.
import { cpSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLES_DIR } from '../../src/cli/examples_dir.js';
import { SHAPES, writeShape } from '../fixtures/hwloc_shapes.js';
import { TEST_DIR } from './cli.js';

export interface OracleTree {
  readonly name: string;
  readonly dir: string;
  /** Writes the tree where it is made on demand (a shape, a cgroup layout); else nothing. */
  readonly prepare: () => void;
}

/** Every directory under `dir` (two levels down at most) that holds a sys/ tree. */
function trees(dir: string, prefix: string): [string, string][] {
  const out: [string, string][] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (!e.isDirectory()) continue;
    const p = join(dir, e.name);
    if (existsSync(join(p, 'sys'))) out.push([`${prefix}${e.name}`, p]);
    else out.push(...trees(p, `${prefix}${e.name}/`).filter(([n]) => n.split('/').length <= 3));
  }
  return out;
}

/**
 * A cgroup mount layout (fixtures/cgroup_mounts/) laid over the lab-2node example, as its own
 * test lays it (cgroup_proc_mounts.test.ts): the example's proc/mounts link replaced.
 */
function overlay(layout: string, dir: string): void {
  cpSync(join(EXAMPLES_DIR, 'lab-2node'), dir, { recursive: true, verbatimSymlinks: true });
  rmSync(join(dir, 'proc', 'mounts'), { force: true });
  cpSync(join(TEST_DIR, 'fixtures', 'cgroup_mounts', layout), dir, { recursive: true });
}

/** The oracle's trees; those made on demand go under `tmp`. */
export function oracleTrees(tmp: string): OracleTree[] {
  const none = () => {};
  const cg = join(TEST_DIR, 'fixtures', 'cgroup_mounts');
  return [
    ...trees(EXAMPLES_DIR, 'examples/').map(([name, dir]) => ({ name, dir, prepare: none })),
    ...trees(join(TEST_DIR, 'fixtures'), 'fixtures/')
      .filter(([n]) => !n.startsWith('fixtures/cgroup_mounts/'))
      .map(([name, dir]) => ({ name, dir, prepare: none })),
    ...readdirSync(cg).map((l) => {
      const dir = join(tmp, 'cg', l);
      return { name: `fixtures/cgroup_mounts/${l} (over lab-2node)`, dir, prepare: () => overlay(l, dir) };
    }),
    ...SHAPES.map((s) => {
      const dir = join(tmp, 'shapes', s.name);
      return { name: `shape/${s.name}`, dir, prepare: () => writeShape(dir, s) };
    }),
  ];
}
