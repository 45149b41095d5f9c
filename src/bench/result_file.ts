// Reading a saved bench result (--save) back, checked enough that compare can trust it.
import type { AbResult, MemResult } from '../model/bench.js';
import { NumakitError } from '../model/errors.js';
import { readNamedFile } from '../runtime/named_file.js';

export function parseResult(text: string, path: string): MemResult | AbResult {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new NumakitError(`${path}: not valid JSON (${(e as Error).message})`);
  }
  const r = v as Partial<MemResult> & Partial<AbResult> & { kind?: string };
  if (typeof r !== 'object' || r === null || (r.kind !== 'bench-mem' && r.kind !== 'bench-ab'))
    throw new NumakitError(`${path}: not a numakit bench result (no kind bench-mem or bench-ab)`);
  if (r.schemaVersion !== 1)
    throw new NumakitError(`${path}: schemaVersion ${String(r.schemaVersion)}; this numakit reads 1`);
  const arrays =
    r.kind === 'bench-mem'
      ? ['bandwidth', 'latency', 'loadedLatency', 'cpuNodes', 'memNodes']
      : ['variants', 'runs', 'summary'];
  for (const k of arrays)
    if (!Array.isArray((r as Record<string, unknown>)[k]))
      throw new NumakitError(`${path}: a ${r.kind} result without its '${k}' list`);
  if (typeof r.settings !== 'object' || r.settings === null)
    throw new NumakitError(`${path}: a ${r.kind} result without its settings`);
  return r as MemResult | AbResult;
}

export function readResult(path: string): MemResult | AbResult {
  return parseResult(readNamedFile(path), path);
}
