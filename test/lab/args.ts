// Topology options shared by `npm run lab` and `npm run capture`. Pure; see args.test.ts.
import { LAB_TOPOLOGIES, topologyByName } from './topologies.js';
import type { Topology } from './topology.js';

export const TOPOLOGY_HELP = `topology options:
  --topology NAME      start from a shared topology: ${LAB_TOPOLOGIES.map((t) => t.name).join(', ')}
  --nodes N            number of NUMA nodes (default 2)
  --cpus N|A,B,...     CPUs per node (default 1)
  --mem MIB|A,B,...    memory per node, MiB or with M/G suffix (default 512)
  --distances ROWS     full matrix, rows split by ';' e.g. "10,20;20,10"
  --memory-only I,J    nodes with memory but no CPUs
  --hmat               ACPI HMAT latency/bandwidth (derived from the distances)
  --timeout SEC        kill the guest after SEC seconds (default 180)`;

export class LabUsageError extends Error {
  override name = 'LabUsageError';
}

export interface ParsedLabArgs {
  readonly topology: Topology;
  readonly timeoutMs?: number;
  /** Values of the caller's extra flags (e.g. --name). */
  readonly extra: ReadonlyMap<string, string>;
  /** Everything after a bare `--`. */
  readonly command: readonly string[];
}

function int(v: string, flag: string): number {
  if (!/^\d+$/.test(v)) throw new LabUsageError(`${flag}: expected a number, got '${v}'`);
  return Number(v);
}

function mib(v: string, flag: string): number {
  const m = /^(\d+)([MG]?)$/i.exec(v.trim());
  if (!m?.[1]) throw new LabUsageError(`${flag}: expected MiB or a size like 512M or 1G, got '${v}'`);
  return Number(m[1]) * (m[2]?.toUpperCase() === 'G' ? 1024 : 1);
}

function list(v: string, flag: string, each: (s: string, f: string) => number): number | number[] {
  const parts = v.split(',').map((s) => each(s.trim(), flag));
  return parts.length === 1 && !v.includes(',') ? (parts[0] ?? 0) : parts;
}

function matrix(v: string): number[][] {
  return v
    .split(';')
    .filter((r) => r.trim() !== '')
    .map((row) => row.split(',').map((s) => int(s.trim(), '--distances')));
}

type Mutable = { -readonly [K in keyof Topology]: Topology[K] };

function applyFlag(t: Mutable, flag: string, value: string): void {
  switch (flag) {
    case '--topology': {
      const named = topologyByName(value);
      if (!named)
        throw new LabUsageError(`unknown topology '${value}' (known: ${LAB_TOPOLOGIES.map((x) => x.name).join(', ')})`);
      for (const k of ['distances', 'memoryOnly', 'hmat'] as const) delete t[k];
      Object.assign(t, named);
      return;
    }
    case '--nodes':
      t.nodes = int(value, flag);
      return;
    case '--cpus':
      t.cpus = list(value, flag, int);
      return;
    case '--mem':
      t.memMiB = list(value, flag, mib);
      return;
    case '--distances':
      t.distances = matrix(value);
      return;
    case '--memory-only':
      t.memoryOnly = value.split(',').map((s) => int(s.trim(), flag));
      return;
    default:
      throw new LabUsageError(`unknown option '${flag}'`);
  }
}

/** Parses topology options, the caller's `extraFlags` (each taking a value) and `-- command...`. */
export function parseLabArgs(argv: readonly string[], extraFlags: readonly string[] = []): ParsedLabArgs {
  const t: Mutable = { name: 'custom', nodes: 2, cpus: 1, memMiB: 512 };
  const extra = new Map<string, string>();
  let timeoutMs: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--') return { topology: t, timeoutMs, extra, command: argv.slice(i + 1) };
    if (arg === '--hmat') {
      t.hmat = true;
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (!flag.startsWith('--')) throw new LabUsageError(`unexpected argument '${arg}' (put the command after --)`);
    if (value === undefined) throw new LabUsageError(`${flag} needs a value`);
    if (flag === '--timeout') timeoutMs = int(value, flag) * 1000;
    else if (extraFlags.includes(flag)) extra.set(flag, value);
    else applyFlag(t, flag, value);
  }
  return { topology: t, timeoutMs, extra, command: [] };
}
