// The NUMA facts in `lstopo-no-graphics --of xml` (hwloc 2.x): NUMANode objects (os_index,
// cpuset, local_memory) and the NUMANode distances2 matrix. Pure; see hwloc_xml.test.ts.

export interface HwlocNode {
  readonly id: number;
  readonly cpus: readonly number[];
  readonly memTotalBytes: number;
}

export interface HwlocNuma {
  readonly nodes: readonly HwlocNode[];
  /** distances[a][b] by os index; absent when hwloc reported no NUMANode distances. */
  readonly distances?: Readonly<Record<number, Readonly<Record<number, number>>>>;
}

function attrs(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of tag.matchAll(/([A-Za-z_]+)="([^"]*)"/g)) out[m[1] ?? ''] = m[2] ?? '';
  return out;
}

/** hwloc bitmap "0x00000001,0xffffffff" (most significant 32-bit word first) to sorted indexes. */
export function parseHwlocBitmap(text: string): number[] {
  const words = text.split(',').reverse();
  const out: number[] = [];
  words.forEach((w, i) => {
    const v = Number.parseInt(w.replace(/^0x/, ''), 16);
    if (Number.isNaN(v)) throw new SyntaxError(`bad hwloc bitmap '${text}'`);
    for (let bit = 0; bit < 32; bit++) if ((v >>> bit) & 1) out.push(i * 32 + bit);
  });
  return out.sort((a, b) => a - b);
}

function parseDistances(xml: string): HwlocNuma['distances'] {
  const m = /<distances2 ([^>]*type="NUMANode"[^>]*)>([\s\S]*?)<\/distances2>/.exec(xml);
  if (!m) return undefined;
  const indexes = (/<indexes[^>]*>([^<]*)</.exec(m[2] ?? '')?.[1] ?? '').trim().split(/\s+/).map(Number);
  // hwloc writes the matrix in chunks of at most 10 values, one <u64values> element each.
  const values = [...(m[2] ?? '').matchAll(/<u64values[^>]*>([^<]*)</g)]
    .flatMap((v) => (v[1] ?? '').trim().split(/\s+/))
    .filter(Boolean)
    .map(Number);
  if (values.length !== indexes.length * indexes.length)
    throw new SyntaxError(`hwloc distances: ${values.length} values for ${indexes.length} nodes`);
  const out: Record<number, Record<number, number>> = {};
  indexes.forEach((a, i) => {
    out[a] = Object.fromEntries(indexes.map((b, j) => [b, values[i * indexes.length + j] ?? NaN]));
  });
  return out;
}

export function parseHwlocXml(xml: string): HwlocNuma {
  const nodes = [...xml.matchAll(/<object type="NUMANode"[^>]*>/g)].map((m) => {
    const a = attrs(m[0]);
    return {
      id: Number(a['os_index']),
      cpus: parseHwlocBitmap(a['cpuset'] ?? '0x0'),
      memTotalBytes: Number(a['local_memory'] ?? 0),
    };
  });
  if (nodes.length === 0) throw new SyntaxError('no NUMANode object in the hwloc XML');
  nodes.sort((a, b) => a.id - b.id);
  const distances = parseDistances(xml);
  return distances ? { nodes, distances } : { nodes };
}
