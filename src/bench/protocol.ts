// What the main thread and the kernel workers say to each other. Plain data only: this file is
// imported on both sides.

export type Kernel = 'read' | 'write' | 'copy' | 'triad';
export const KERNELS: readonly Kernel[] = ['read', 'write', 'copy', 'triad'];

/** Bytes each kernel moves per byte of one array, counted as STREAM counts them. */
export const BYTES_PER_ARRAY_BYTE: Readonly<Record<Kernel, number>> = { read: 1, write: 1, copy: 2, triad: 3 };

/** One worker's share of the three arrays: byte offsets into the shared memory, and a length. */
export interface Slice {
  readonly a: number;
  readonly b: number;
  readonly c: number;
  readonly n: number;
}

/** Int32 slots of the control buffer. */
export const CTL = { seq: 0, done: 1, stop: 2, end: 3, slots: 8 } as const;

export interface WorkerInit {
  readonly index: number;
  readonly memory: WebAssembly.Memory;
  readonly control: SharedArrayBuffer;
  /** Float64 per worker: start and end of its last rep, in seconds of a shared monotonic clock. */
  readonly times: SharedArrayBuffer;
  readonly wasm: string;
}

export type ToWorker =
  | { readonly type: 'pin'; readonly cpus: readonly number[] }
  | { readonly type: 'reps'; readonly kernel: Kernel; readonly slice: Slice }
  | { readonly type: 'chase'; readonly start: number; readonly lines: number; readonly seconds: number }
  | { readonly type: 'stream'; readonly slice: Slice };

export type FromWorker =
  | { readonly type: 'pinned'; readonly cpu: number; readonly node: number }
  | { readonly type: 'ready' }
  | { readonly type: 'chased'; readonly nsPerLoad: number[]; readonly loads: number }
  | { readonly type: 'streamed'; readonly bytes: number; readonly seconds: number }
  | { readonly type: 'error'; readonly message: string };

/** What the kernels module exports (src/bench/wasm/kernels.wat). */
export interface KernelExports {
  read(p: number, n: number): bigint;
  fill(p: number, n: number, byte: number): void;
  copy(dst: number, src: number, n: number): void;
  triad(a: number, b: number, c: number, n: number, x: number): void;
  chase(p: number, count: number): number;
}
