// Sizes as users type them, the one grammar of every size flag and config key (agent, serve,
// bench, plan): "64M", "1G", "48GiB", "512k", "1.5t", a plain number = bytes; binary units.
// run's numactl options (--length, --offset) keep numactl's own memsize() grammar
// (cli/commands/run_argv.ts: hex, no fractions), as numactl reads them. Pure.
import { UsageError } from './errors.js';

const SIZE: Record<string, number> = { '': 1, b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/**
 * Bytes of a size; throws UsageError naming `what` (the flag or key). `positive`: 0 is refused
 * too (a heap or a buffer pool of no bytes).
 */
export function parseSize(v: string | number, what: string, o: { positive?: boolean } = {}): number {
  const m = typeof v === 'number' ? ['', String(v), ''] : /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*$/i.exec(v);
  if (!m || !(Number(m[1]) >= 0))
    throw new UsageError(`${what} '${v}': expected a size such as 64M, 1G or a byte count`);
  const bytes = Math.round(Number(m[1]) * SIZE[(m[2] ?? '').toLowerCase()]!);
  if (o.positive === true && bytes === 0) throw new UsageError(`${what} '${v}': must be more than 0`);
  return bytes;
}

/** 33554432 -> "32M", 1536 -> "1536": the largest binary unit that divides it (k, M, G, T). */
export function formatSize(bytes: number): string {
  for (const [unit, n] of [...Object.entries(SIZE)]
    .filter(([u]) => u.length === 1 && u !== 'b')
    .sort((a, b) => b[1] - a[1]))
    if (bytes >= n && bytes % n === 0) return `${bytes / n}${unit === 'k' ? 'k' : unit.toUpperCase()}`;
  return String(bytes);
}
