// Compares numakit's numastat-format output with numastat's on a live system. numakit runs
// between two numastat runs ("before" and "after"): every line must have the same layout as
// numastat's (the same text once numbers are blanked, each number ending in the same column:
// right-justified in the same widths), and every number must lie between numastat's two values,
// give or take `slack` (what numakit's own run changes: a Node process maps and allocates tens
// of MB, which moves meminfo, not the monotonic counters). Returns the differences found.

const NUM = /-?\d+(?:\.\d+)?/g;

function shape(line: string): { text: string; ends: number[]; values: number[] } {
  const ends: number[] = [];
  const values: number[] = [];
  const text = line.replace(NUM, (m, offset: number) => {
    ends.push(offset + m.length);
    values.push(Number(m));
    return ' '.repeat(m.length);
  });
  return { text, ends, values };
}

export interface CompareOptions {
  /** numastat's output after numakit ran (default: the same as before). */
  readonly after?: string;
  /** Allowed distance outside [before, after] (default 0). */
  readonly slack?: number;
  /** A larger slack for the rows whose first word is a key here ("MemFree"). */
  readonly rowSlack?: Readonly<Record<string, number>>;
}

export function compareNumastat(ours: string, before: string, o: CompareOptions = {}): string[] {
  const [a, b, c] = [ours, before, o.after ?? before].map((t) => t.split('\n'));
  const problems: string[] = [];
  if (a!.length !== b!.length || b!.length !== c!.length)
    problems.push(`${a!.length} lines, numastat printed ${b!.length} then ${c!.length}`);
  const n = Math.min(a!.length, b!.length, c!.length);
  for (let i = 0; i < n; i++) {
    const [x, y, z] = [shape(a![i]!), shape(b![i]!), shape(c![i]!)];
    if (x.text !== y.text || x.ends.join() !== y.ends.join()) {
      problems.push(`line ${i + 1} differs in layout:\n  numakit:  '${a![i]}'\n  numastat: '${b![i]}'`);
      continue;
    }
    const slack = o.rowSlack?.[a![i]!.trim().split(/\s+/)[0]!] ?? o.slack ?? 0;
    x.values.forEach((v, j) => {
      const lo = Math.min(y.values[j]!, z.values[j] ?? y.values[j]!) - slack;
      const hi = Math.max(y.values[j]!, z.values[j] ?? y.values[j]!) + slack;
      if (v < lo - 1e-9 || v > hi + 1e-9)
        problems.push(
          `line ${i + 1}, number ${j + 1}: ${v} outside numastat's [${lo + slack}, ${hi - slack}] (slack ${slack}):\n  '${a![i]}'`,
        );
    });
  }
  return problems;
}
