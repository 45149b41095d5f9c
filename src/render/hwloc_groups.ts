// hwloc's grouping of NUMA nodes by distance, for `numakit topo --xml` (hwloc_tree.ts). Pure.

/**
 * hwloc's grouping of NUMA nodes by distance (hwloc__groups_by_distances, exact accuracy): nodes
 * joined, transitively, by the smallest distance between two of them form a group; with more
 * than one group and fewer groups than nodes each group is a Group object (its CPUs: its nodes'
 * localities), and the groups are grouped again by their average distances. An 8-node machine of
 * two 4-node sockets (12 inside, 32 across) gets two Groups; 10/12 everywhere (EPYC NPS4) none.
 */
export function distanceGroups(
  ids: readonly number[],
  dist: (a: number, b: number) => number | undefined,
): { nodes: number[]; level: number }[] {
  const out: { nodes: number[]; level: number }[] = [];
  let members: number[][] = ids.map((i) => [i]);
  let d = (a: number, b: number): number | undefined => dist(ids[a]!, ids[b]!);
  for (let level = 0; level < 8 && members.length > 2; level++) {
    const n = members.length;
    let min = Number.POSITIVE_INFINITY;
    for (let a = 0; a < n; a++)
      for (let b = 0; b < n; b++) {
        const v = d(a, b);
        if (a === b) continue;
        if (v === undefined) return out;
        min = Math.min(min, v);
      }
    const group = new Array<number>(n).fill(-1);
    let groups = 0;
    for (let a = 0; a < n; a++) {
      if (group[a] !== -1) continue;
      group[a] = groups;
      const queue = [a];
      while (queue.length > 0) {
        const x = queue.shift()!;
        for (let b = 0; b < n; b++)
          if (group[b] === -1 && d(x, b) === min) {
            group[b] = groups;
            queue.push(b);
          }
      }
      groups++;
    }
    if (groups === 1 || groups === n) break;
    const next: number[][] = Array.from({ length: groups }, () => []);
    const inGroup: number[][] = Array.from({ length: groups }, () => []);
    for (let a = 0; a < n; a++) {
      next[group[a]!]!.push(...members[a]!);
      inGroup[group[a]!]!.push(a);
    }
    out.push(...next.filter((g) => g.length > 1).map((g) => ({ nodes: [...g].sort((x, y) => x - y), level })));
    const prev = d;
    d = (a: number, b: number) => {
      let sum = 0;
      for (const x of inGroup[a]!)
        for (const y of inGroup[b]!) {
          const v = prev(x, y);
          if (v === undefined) return undefined;
          sum += v;
        }
      return sum / (inGroup[a]!.length * inGroup[b]!.length);
    };
    members = next;
  }
  return out;
}
