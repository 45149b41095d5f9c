// Addresses of JS-owned memory, for the calls that take a virtual address range
// (mbind, move_pages, get_mempolicy with MPOL_F_ADDR).
import { libc } from './libc.js';

/** A range of the caller's virtual memory. */
export interface MemoryRange {
  addr: bigint;
  length: number;
}

let page: number | undefined;

/** The base page size in bytes. */
export function pageSize(): number {
  page ??= libc().getpagesize() as number;
  return page;
}

/** Address of the first byte of a buffer, typed array or (Shared)ArrayBuffer. */
export function addressOf(memory: ArrayBufferView | ArrayBufferLike): bigint {
  // koffi.address() accepts views but not a bare (Shared)ArrayBuffer: wrap it.
  const view = ArrayBuffer.isView(memory) ? memory : new Uint8Array(memory);
  return libc().koffi.address(view);
}

/**
 * The whole pages inside `memory`: mbind(2) needs a page-aligned start, and a JS buffer
 * rarely starts on a page boundary. RangeError when not even one page fits.
 */
export function pageAlignedRange(memory: ArrayBufferView | ArrayBufferLike): MemoryRange {
  const size = BigInt(pageSize());
  const start = addressOf(memory);
  const end = start + BigInt(memory.byteLength);
  const first = ((start + size - 1n) / size) * size;
  const last = (end / size) * size;
  if (last <= first)
    throw new RangeError(`a buffer of ${memory.byteLength} bytes holds no whole page of ${size} bytes`);
  return { addr: first, length: Number(last - first) };
}

/** The address of each page in `range` (as move_pages wants them). */
export function pageAddresses(range: MemoryRange): bigint[] {
  const size = BigInt(pageSize());
  const out: bigint[] = [];
  for (let a = range.addr, end = range.addr + BigInt(range.length); a < end; a += size) out.push(a);
  return out;
}
