// Compares two numastat-format outputs taken one after the other on a live system: the same
// lines with the same layout (every line equal once numbers are blanked, and equally long),
// numbers differing only by what can change between two reads. Returns the differences found.

const NUM = /-?\d+(?:\.\d+)?/g;

export interface CompareOptions {
  /** Allowed |a - b| as a share of the larger value (default 0.25). */
  readonly relative?: number;
  /** Allowed |a - b| whatever the values (default 64: pages or MB). */
  readonly absolute?: number;
}

export function compareNumastat(ours: string, theirs: string, o: CompareOptions = {}): string[] {
  const rel = o.relative ?? 0.25;
  const abs = o.absolute ?? 64;
  const a = ours.split('\n');
  const b = theirs.split('\n');
  const problems: string[] = [];
  if (a.length !== b.length) problems.push(`${a.length} lines, numastat printed ${b.length}`);
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const [x, y] = [a[i]!, b[i]!];
    if (x.replace(NUM, '#') !== y.replace(NUM, '#') || x.length !== y.length) {
      problems.push(`line ${i + 1} differs in layout:\n  numakit:  '${x}'\n  numastat: '${y}'`);
      continue;
    }
    const nx = x.match(NUM) ?? [];
    const ny = y.match(NUM) ?? [];
    nx.forEach((v, j) => {
      const [p, q] = [Number(v), Number(ny[j])];
      if (Math.abs(p - q) > Math.max(abs, rel * Math.max(Math.abs(p), Math.abs(q)))) problems.push(`line ${i + 1}, number ${j + 1}: ${p} vs numastat ${q}:\n  '${x}'\n  '${y}'`);
    });
  }
  return problems;
}
