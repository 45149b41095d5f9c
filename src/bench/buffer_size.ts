// The largest shared WebAssembly memory whose byte offsets stay below 2^32: 65535 pages of 64 KiB.
export const MAX_MEMORY_BYTES = 65535 * 65536;
