// A batch's buffers for move_pages(2) and the per-page loops over them (wasm/pages.wat), on one
// WebAssembly memory: the page addresses walked (64-bit words: `void *pages[]` as the kernel
// wants it), the pages chosen to move with their target nodes, the kernel's statuses, the
// indices of pages left behind, and the table of each source node's target. koffi passes the
// views below to the kernel as they are. User-space addresses fit a JS number (below 2^48).
import { PAGES_WASM_BASE64 } from './wasm/pages_wasm.js';

const HALF = 4294967296;
/** Pages a batch holds at least (MAX_BATCH_BYTES of base pages), so that batches growing 4x a step do not re-lay the memory. */
const MIN_CAPACITY = 4096;
/** Node ids the target table holds at least (the kernel's MAX_NUMNODES on x86_64 and arm64). */
const MIN_NODES = 1024;
const WASM_PAGE = 65536;

interface PageLoops {
  fill(out: number, start: number, step: number, count: number): void;
  select(
    addrs: number,
    status: number,
    count: number,
    table: number,
    tableLen: number,
    chosen: number,
    nodes: number,
  ): number;
  unsure(status: number, n: number, unset: number, busy: number): number;
  tally(status: number, nodes: number, n: number, skip1: number, skip2: number, left: number, out: number): number;
}

let compiled: WebAssembly.Module | undefined;

/** What tally() counted of a batch's chosen pages. */
export interface Tally {
  /** Pages that exist (not -ENOENT or -EFAULT). */
  readonly found: number;
  /** Pages whose status is their target node. */
  readonly moved: number;
  /** Found pages not on their target: their indices are left[0..leftCount). */
  readonly leftCount: number;
}

export class BatchBuffers {
  capacity = 0;
  /** Addresses walked: `capacity` 64-bit words as lo, hi halves. */
  addrs = new Uint32Array(0);
  /** Addresses chosen to move, in the same form. */
  chosen = new Uint32Array(0);
  nodes = new Int32Array(0);
  status = new Int32Array(0);
  /** Indices (into chosen) of the pages tally() found left behind. */
  left = new Int32Array(0);
  private table = new Int32Array(0);
  private tableLen = 0;
  private results = new Int32Array(0);
  private loops: PageLoops | null = null;

  /** Room for `n` pages (the pages' contents are not kept when it grows; the targets are). */
  ensure(n: number): void {
    if (this.capacity >= n) return;
    this.layOut(Math.max(n, MIN_CAPACITY), Math.max(MIN_NODES, this.table.length));
  }

  /** Source node -> target node for select(); set once a move, before its batches. */
  setTargets(target: ReadonlyMap<number, number>): void {
    const len = Math.max(0, ...target.keys()) + 1;
    if (this.loops === null || len > this.table.length)
      this.layOut(Math.max(this.capacity, MIN_CAPACITY), Math.max(MIN_NODES, len));
    this.table.fill(-1, 0, len);
    for (const [from, to] of target) this.table[from] = to;
    this.tableLen = len;
  }

  /** addrs[i] = start + i * step for i < count. */
  fill(start: number, step: number, count: number): void {
    this.loops!.fill(this.addrs.byteOffset, start, step, count);
  }

  setAddr(i: number, addr: number): void {
    this.addrs[2 * i] = addr % HALF;
    this.addrs[2 * i + 1] = Math.floor(addr / HALF);
  }

  chosenAddr(i: number): number {
    return this.chosen[2 * i + 1]! * HALF + this.chosen[2 * i]!;
  }

  /** Of addrs[0..count), those whose status is a source node go to chosen/nodes with their target; returns how many. */
  select(count: number): number {
    return this.loops!.select(
      this.addrs.byteOffset,
      this.status.byteOffset,
      count,
      this.table.byteOffset,
      this.tableLen,
      this.chosen.byteOffset,
      this.nodes.byteOffset,
    );
  }

  /** Whether a status of the first n is `unset` or `busy`. */
  unsure(n: number, unset: number, busy: number): boolean {
    return this.loops!.unsure(this.status.byteOffset, n, unset, busy) !== 0;
  }

  /** Counts the first n chosen pages by status; statuses skip1 and skip2 are not found. */
  tally(n: number, skip1: number, skip2: number): Tally {
    const moved = this.loops!.tally(
      this.status.byteOffset,
      this.nodes.byteOffset,
      n,
      skip1,
      skip2,
      this.left.byteOffset,
      this.results.byteOffset,
    );
    return { found: this.results[0]!, moved, leftCount: this.results[1]! };
  }

  private layOut(capacity: number, nodes: number): void {
    const targets = this.table.slice(0, this.tableLen);
    const sizes = [capacity * 8, capacity * 8, capacity * 4, capacity * 4, capacity * 4, nodes * 4, 8];
    const memory = new WebAssembly.Memory({ initial: Math.ceil(sizes.reduce((a, b) => a + b, 0) / WASM_PAGE) });
    compiled ??= new WebAssembly.Module(Buffer.from(PAGES_WASM_BASE64, 'base64'));
    this.loops = new WebAssembly.Instance(compiled, { env: { memory } }).exports as unknown as PageLoops;
    let at = 0;
    const next = (bytes: number) => {
      const start = at;
      at += bytes;
      return start;
    };
    const buf = memory.buffer;
    this.addrs = new Uint32Array(buf, next(sizes[0]!), capacity * 2);
    this.chosen = new Uint32Array(buf, next(sizes[1]!), capacity * 2);
    this.nodes = new Int32Array(buf, next(sizes[2]!), capacity);
    this.status = new Int32Array(buf, next(sizes[3]!), capacity);
    this.left = new Int32Array(buf, next(sizes[4]!), capacity);
    this.table = new Int32Array(buf, next(sizes[5]!), nodes);
    this.results = new Int32Array(buf, next(sizes[6]!), 2);
    this.capacity = capacity;
    this.table.set(targets);
  }
}
