// Counts the calls of node:fs functions the code under test makes, by path: a guard that a
// reader does not go back to a syscall a file (an lstat of each directory, an open of each
// CPU's file). node:fs's own functions are wrapped and the ESM bindings synced
// (module.syncBuiltinESMExports), so the code under test is the real one.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

type FsName = 'lstatSync' | 'openSync' | 'readdirSync' | 'statSync';

/** Runs `fn` and returns what it gave with the paths each named function was called with. */
export function withFsCalls<T>(names: readonly FsName[], fn: () => T): { value: T; calls: Map<FsName, string[]> } {
  const calls = new Map<FsName, string[]>(names.map((n) => [n, []]));
  const real = new Map(names.map((n) => [n, fs[n]]));
  for (const n of names) {
    const f = real.get(n) as (...a: unknown[]) => unknown;
    (fs as unknown as Record<string, unknown>)[n] = (p: unknown, ...rest: unknown[]) => {
      calls.get(n)!.push(String(p));
      return f(p, ...rest);
    };
  }
  syncBuiltinESMExports();
  try {
    return { value: fn(), calls };
  } finally {
    for (const n of names) (fs as unknown as Record<string, unknown>)[n] = real.get(n);
    syncBuiltinESMExports();
  }
}

/**
 * Runs `fn` and returns what it gave with the reads (readSync) of each file it opened
 * (openSync), by path, one count per open: a file read once, or read again only to find its end.
 */
export function withFileReads<T>(fn: () => T): { value: T; reads: Map<string, number[]> } {
  const reads = new Map<string, number[]>();
  const open = new Map<number, number[]>();
  const { openSync, readSync } = fs;
  const patch = fs as unknown as Record<string, unknown>;
  patch.openSync = (p: fs.PathLike, ...rest: unknown[]) => {
    const fd = (openSync as (...a: unknown[]) => number)(p, ...rest);
    const counts = reads.get(String(p)) ?? [];
    reads.set(String(p), counts);
    counts.push(0);
    open.set(fd, counts);
    return fd;
  };
  patch.readSync = (fd: number, ...rest: unknown[]) => {
    const counts = open.get(fd);
    if (counts !== undefined) counts[counts.length - 1]!++;
    return (readSync as (...a: unknown[]) => number)(fd, ...rest);
  };
  syncBuiltinESMExports();
  try {
    return { value: fn(), reads };
  } finally {
    patch.openSync = openSync;
    patch.readSync = readSync;
    syncBuiltinESMExports();
  }
}
