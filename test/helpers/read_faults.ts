// Fault injection for the raw reads of src/sysfs/read.ts (openSync + readSync of node:fs): a
// read(2) of a file whose path `fail` names fails with that errno, as the kernel's would (an
// ENOMEM from a seq_file under memory pressure). node:fs's own functions are replaced and the
// ESM bindings synced (module.syncBuiltinESMExports), so the code under test is the real one.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

export async function withReadFaults<T>(fail: (path: string) => string | undefined, fn: () => Promise<T>): Promise<T> {
  const realOpen = fs.openSync;
  const realRead = fs.readSync;
  const paths = new Map<number, string>();
  fs.openSync = ((p: fs.PathLike, ...rest: unknown[]) => {
    const fd = (realOpen as (...a: unknown[]) => number)(p, ...rest);
    paths.set(fd, String(p));
    return fd;
  }) as typeof fs.openSync;
  fs.readSync = ((fd: number, ...rest: unknown[]) => {
    const code = fail(paths.get(fd) ?? '');
    if (code !== undefined)
      throw Object.assign(new Error(`${code}: injected read of ${paths.get(fd)}`), { code, syscall: 'read' });
    return (realRead as (...a: unknown[]) => number)(fd, ...rest);
  }) as typeof fs.readSync;
  syncBuiltinESMExports();
  try {
    return await fn();
  } finally {
    fs.openSync = realOpen;
    fs.readSync = realRead;
    syncBuiltinESMExports();
  }
}
