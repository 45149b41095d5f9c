// The benchmark's buffer: one shared WebAssembly.Memory (a SharedArrayBuffer every worker
// imports), bound to one node at a time with mbind(2) and checked page by page with
// move_pages(2). V8 maps wasm memory page aligned (checked, not assumed).
import { NumakitError } from '../model/errors.js';
import type { Placement } from '../model/bench.js';
import type * as Native from '../native/index.js';
import { MAX_MEMORY_BYTES } from './buffer_size.js';

const WASM_PAGE = 65536;

export interface BenchBuffer {
  readonly memory: WebAssembly.Memory;
  readonly range: Native.MemoryRange;
}

export function allocateBuffer(native: typeof Native, bytes: number): BenchBuffer {
  const pages = Math.ceil(bytes / WASM_PAGE);
  if (pages > 65535)
    throw new NumakitError(`bench buffer of ${bytes} bytes is over the ${MAX_MEMORY_BYTES} a WebAssembly memory holds`);
  let memory: WebAssembly.Memory;
  try {
    memory = new WebAssembly.Memory({ initial: pages, maximum: pages, shared: true });
  } catch (e) {
    throw new NumakitError(`cannot reserve a ${Math.round(bytes / 2 ** 20)} MiB buffer: ${(e as Error).message}`);
  }
  const range = { addr: native.addressOf(memory.buffer), length: pages * WASM_PAGE };
  if (range.addr % BigInt(native.pageSize()) !== 0n)
    throw new NumakitError('bench: the WebAssembly memory is not page aligned; cannot bind it');
  return { memory, range };
}

/**
 * Drops the buffer's pages, binds it to `node` (MPOL_BIND, MPOL_MF_STRICT | MPOL_MF_MOVE for
 * any page still present) and touches every page so that it is allocated there now.
 * `hugePages`: MADV_HUGEPAGE first (transparent huge pages).
 */
export function bindBuffer(
  native: typeof Native,
  buf: BenchBuffer,
  node: number,
  opts: { hugePages: boolean },
): string | null {
  native.madvise(buf.range, native.MADV_DONTNEED);
  if (opts.hugePages) native.madvise(buf.range, native.MADV_HUGEPAGE);
  let note: string | null = null;
  try {
    native.mbind(
      buf.range,
      { mode: native.MPOL_BIND, nodes: [node] },
      { flags: native.MPOL_MF_STRICT | native.MPOL_MF_MOVE },
    );
  } catch (e) {
    // EIO: some page could not be moved. The verification below says how much.
    if (!(e instanceof native.NativeError) || e.code !== 'EIO') throw e;
    note = `mbind to node ${node}: some pages could not be moved (EIO)`;
  }
  const page = native.pageSize();
  const bytes = new Uint8Array(buf.memory.buffer);
  for (let off = 0; off < bytes.length; off += page) bytes[off] = 0;
  return note;
}

const CHUNK = 1 << 16;

/** Where every page of the buffer is, against the node it was bound to. */
export function verifyBuffer(
  native: typeof Native,
  buf: BenchBuffer,
  node: number,
): Omit<Placement, 'verified' | 'hugeShare'> {
  const page = BigInt(native.pageSize());
  const total = Math.floor(buf.range.length / Number(page));
  const byNode: Record<string, number> = {};
  let unplaced = 0;
  for (let first = 0; first < total; first += CHUNK) {
    const count = Math.min(CHUNK, total - first);
    const pages = Array.from({ length: count }, (_, i) => buf.range.addr + BigInt(first + i) * page);
    for (const s of native.queryPages(pages)) {
      if (s.kind === 'node') byNode[s.node] = (byNode[s.node] ?? 0) + 1;
      else unplaced++;
    }
  }
  const onNode = byNode[node] ?? 0;
  return { node, pages: total, onNode, byNode, unplaced, share: total === 0 ? 0 : onNode / total };
}
