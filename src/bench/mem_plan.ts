// What `bench mem` will measure, decided before anything is allocated: rows (CPU nodes and the
// CPUs that run), columns (memory nodes, memory-only ones included), array and latency sizes by
// STREAM's rule, the one buffer's size, and whether every column node has room for it. Pure.
import { formatCpuList } from '../model/cpuset.js';
import { NumakitError, UsageError } from '../model/errors.js';
import { MAX_MEMORY_BYTES } from './buffer_size.js';

const MiB = 2 ** 20;
const ALIGN = 2 * MiB; // arrays start on 2 MiB boundaries so that huge pages can back them
export const DEFAULT_LATENCY_BYTES = 256 * MiB;
/** Arrays when the last-level cache is unknown (no cache/ in sysfs, as in some VMs). */
export const FALLBACK_ARRAY_BYTES = 256 * MiB;

export interface PlanNode {
  readonly id: number;
  /** Online CPUs this process may run on. */
  readonly cpus: readonly number[];
  readonly hasMemory: boolean;
  readonly memFreeBytes: number | null;
  readonly llcBytes: number | null;
}

export interface MemRequest {
  /** --nodes: only these nodes as rows and columns. */
  readonly nodes?: readonly number[];
  readonly threads?: number;
  readonly arrayBytes?: number;
  readonly latencyBytes?: number;
  readonly bandwidth: boolean;
  readonly latency: boolean;
  readonly loaded: boolean;
}

export interface MemRow {
  readonly node: number;
  /** One worker thread per CPU, in this order. */
  readonly cpus: number[];
}

export interface MemPlan {
  readonly rows: MemRow[];
  readonly cols: number[];
  readonly arrayBytes: number;
  readonly latencyBytes: number;
  readonly bufferBytes: number;
  readonly llcBytes: number | null;
  readonly arrayToCache: number | null;
  readonly ruleMet: boolean | null;
  readonly notes: string[];
}

const roundUp = (n: number, to: number) => Math.ceil(n / to) * to;
export const mib = (b: number) => `${Math.round(b / MiB)} MiB`;

function pickRows(nodes: readonly PlanNode[], req: MemRequest, notes: string[]): MemRow[] {
  const rows: MemRow[] = [];
  for (const n of nodes) {
    if (n.cpus.length === 0) continue;
    const cpus = req.threads === undefined ? [...n.cpus] : n.cpus.slice(0, req.threads);
    if (req.threads !== undefined && req.threads > n.cpus.length)
      notes.push(
        `node ${n.id} has ${n.cpus.length} CPU(s) this process may use: ${n.cpus.length} thread(s) there, not ${req.threads}`,
      );
    rows.push({ node: n.id, cpus });
  }
  return rows;
}

/** The sizes: arrays >= 4x the largest row's last-level cache, the latency buffer >= 256 MiB. */
function pickSizes(rows: readonly MemRow[], nodes: readonly PlanNode[], req: MemRequest, notes: string[]) {
  const llcs = rows.map((r) => nodes.find((n) => n.id === r.node)!.llcBytes);
  const llc = llcs.some((l) => l === null) ? null : Math.max(0, ...(llcs as number[]));
  if (llc === null)
    notes.push(`last-level cache size unknown (no cache/ in sysfs): arrays default to ${mib(FALLBACK_ARRAY_BYTES)}`);
  const loadedExtra = (a: number) => (req.loaded ? a : 0);
  let arrayBytes = req.arrayBytes ?? roundUp(llc === null ? FALLBACK_ARRAY_BYTES : Math.max(4 * llc, 32 * MiB), ALIGN);
  if (req.arrayBytes === undefined && 3 * arrayBytes > MAX_MEMORY_BYTES) {
    arrayBytes = Math.floor(MAX_MEMORY_BYTES / 3 / ALIGN) * ALIGN;
    notes.push(`arrays capped at ${mib(arrayBytes)}: a WebAssembly memory holds at most 4 GiB for the three arrays`);
  }
  let latencyBytes = req.latencyBytes ?? roundUp(Math.max(DEFAULT_LATENCY_BYTES, 4 * (llc ?? 0)), ALIGN);
  if (req.latencyBytes === undefined && latencyBytes + loadedExtra(arrayBytes) > MAX_MEMORY_BYTES) {
    latencyBytes = Math.floor((MAX_MEMORY_BYTES - loadedExtra(arrayBytes)) / ALIGN) * ALIGN;
  }
  return { llc, arrayBytes: roundUp(arrayBytes, 4096), latencyBytes: roundUp(latencyBytes, 4096) };
}

export function planMem(nodes: readonly PlanNode[], req: MemRequest): MemPlan {
  const notes: string[] = [];
  const chosen = req.nodes === undefined ? nodes : nodes.filter((n) => req.nodes!.includes(n.id));
  const rows = pickRows(chosen, req, notes);
  const cols = chosen.filter((n) => n.hasMemory).map((n) => n.id);
  if (rows.length === 0)
    throw new NumakitError(
      `no node with CPUs this process may use among nodes ${formatCpuList(chosen.map((n) => n.id))}: nothing can run the kernels`,
    );
  if (cols.length === 0)
    throw new NumakitError(`no node with memory among nodes ${formatCpuList(chosen.map((n) => n.id))}`);
  const { llc, arrayBytes, latencyBytes } = pickSizes(rows, nodes, req, notes);
  const bw = req.bandwidth ? 3 * arrayBytes : 0;
  const lat = req.latency ? latencyBytes + (req.loaded ? arrayBytes : 0) : 0;
  const bufferBytes = roundUp(Math.max(bw, lat), 65536);
  if (bufferBytes > MAX_MEMORY_BYTES) {
    throw new UsageError(
      `bench mem: ${mib(bufferBytes)} of buffer (3 x --size, or --latency-size + --size with --loaded) is over the ${mib(MAX_MEMORY_BYTES)} a WebAssembly memory holds`,
    );
  }
  const arrayToCache = llc === null || llc === 0 ? null : arrayBytes / llc;
  const ruleMet = !req.bandwidth || arrayToCache === null ? null : arrayToCache >= 4;
  if (ruleMet === false)
    notes.push(
      `arrays of ${mib(arrayBytes)} are ${arrayToCache!.toFixed(1)}x the ${mib(llc!)} last-level cache: below STREAM's 4x, caches inflate the figures`,
    );
  checkFree(nodes, cols, bufferBytes);
  return { rows, cols, arrayBytes, latencyBytes, bufferBytes, llcBytes: llc, arrayToCache, ruleMet, notes };
}

/** Refuses before allocating when a column node has too little free memory (64 MiB kept spare). */
function checkFree(nodes: readonly PlanNode[], cols: readonly number[], bufferBytes: number): void {
  const spare = 64 * MiB;
  for (const id of cols) {
    const free = nodes.find((n) => n.id === id)!.memFreeBytes;
    if (free !== null && free < bufferBytes + spare) {
      throw new NumakitError(
        `not enough free memory on node ${id}: ${mib(free)} free, the benchmark buffer needs ${mib(bufferBytes)} there (+${mib(spare)} spare); use a smaller --size/--latency-size, or leave node ${id} out with --nodes`,
      );
    }
  }
}
