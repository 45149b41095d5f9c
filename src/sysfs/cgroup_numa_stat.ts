// A cgroup's memory per node, from memory.numa_stat of either hierarchy:
//   v2 (cgroup-v2.rst):  "anon N0=BYTES N1=BYTES", one memory type a line, bytes, counting the
//                        cgroup and its descendants;
//   v1 (cgroup-v1/memory.rst 5.6): "total=PAGES N0=PAGES ...", lines total, file, anon,
//                        unevictable for the cgroup itself, then hierarchical_* with its
//                        descendants; pages. The hierarchical lines are taken (as v2 counts).
// Absent (no memory controller on that cgroup) is absent; unparseable, absent with a warning.
import { SysfsParseError } from '../model/errors.js';
import { cgroupDir, readCgroupHierarchies } from './cgroup_mounts.js';
import { cgroupFile, parseNumaStat } from './cgroup_v2.js';
import { readParsed } from './read_parsed.js';
import type { SysRoot } from './root.js';

/** Memory of a cgroup on one node, bytes. */
export interface CgroupNodeMemory {
  readonly anon: number;
  readonly file: number;
  /** anon + file (+ unevictable on v1): what the cgroup is charged on the node. */
  readonly total: number;
}

export type CgroupNumaStat = Map<number, CgroupNodeMemory>;

/** v1 memory.numa_stat: type -> node -> pages ("hierarchical_anon" kept as its own type). */
export function parseNumaStatV1(text: string): Map<string, Map<number, number>> {
  const out = new Map<string, Map<number, number>>();
  text.split('\n').forEach((line, i) => {
    const words = line.trim().split(/\s+/);
    if (words[0] === undefined || words[0] === '') return;
    const head = /^([a-z_]+)=(\d+)$/.exec(words[0]);
    if (!head) throw new SysfsParseError('not a "TYPE=PAGES N0=PAGES ..." numa_stat line', { line: i + 1, text: line });
    const nodes = new Map<number, number>();
    for (const w of words.slice(1)) {
      const m = /^N(\d+)=(\d+)$/.exec(w);
      if (!m) throw new SysfsParseError('not a "N0=PAGES" numa_stat field', { line: i + 1, text: line });
      nodes.set(Number(m[1]), Number(m[2]));
    }
    out.set(head[1]!, nodes);
  });
  return out;
}

function perNode(
  types: Map<string, Map<number, number>>,
  unit: number,
  names: { anon: string; file: string; extra?: string },
): CgroupNumaStat {
  const nodes = new Set<number>();
  for (const k of [names.anon, names.file]) for (const n of types.get(k)?.keys() ?? []) nodes.add(n);
  const out: CgroupNumaStat = new Map();
  for (const n of [...nodes].sort((a, b) => a - b)) {
    const anon = (types.get(names.anon)?.get(n) ?? 0) * unit;
    const file = (types.get(names.file)?.get(n) ?? 0) * unit;
    const extra = names.extra === undefined ? 0 : (types.get(names.extra)?.get(n) ?? 0) * unit;
    out.set(n, { anon, file, total: anon + file + extra });
  }
  return out;
}

/** v2 memory.numa_stat as memory per node. */
export function numaStatV2(text: string): CgroupNumaStat {
  return perNode(parseNumaStat(text), 1, { anon: 'anon', file: 'file' });
}

/** v1 memory.numa_stat as memory per node (the hierarchical lines where the kernel has them). */
export function numaStatV1(text: string, pageSize: number): CgroupNumaStat {
  const t = parseNumaStatV1(text);
  const h = t.has('hierarchical_anon') ? 'hierarchical_' : '';
  return perNode(t, pageSize, { anon: `${h}anon`, file: `${h}file`, extra: `${h}unevictable` });
}

/** A cgroup's memory.numa_stat, v2 path or v1 memory-hierarchy path; null when absent. */
export function readCgroupNumaStat(
  root: SysRoot,
  cgroup: string,
  o: { version: 1 | 2; pageSize: number },
): CgroupNumaStat | null {
  if (o.version === 2) return readParsed(root, cgroupFile(root, cgroup, 'memory.numa_stat'), numaStatV2);
  const mount = readCgroupHierarchies(root).memory;
  const dir = mount === null ? null : cgroupDir(mount, cgroup);
  if (dir === null) return null;
  return readParsed(root, `${dir}/memory.numa_stat`, (t) => numaStatV1(t, o.pageSize));
}
