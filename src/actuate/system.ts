// The one door to the running system for apply/rollback: read and write knob files under a
// root, and start/stop systemd units. The CLI uses the real "/" and systemctl; tests pass a
// temporary directory and a fake service manager, so the same engine runs on a fake tree.
import { accessSync, constants } from 'node:fs';
import type { ServiceState } from '../model/change.js';
import { NumakitError } from '../model/errors.js';
import { readText } from '../sysfs/read.js';
import { rootPath, type SysRoot } from '../sysfs/root.js';
import { fileOps, type FileOps } from './file_ops.js';
import type { IrqbalanceControl } from './irqbalance_socket.js';
import type { TunedControl } from './tuned_adm.js';

export interface ServiceManager {
  /** Runtime state of a unit, or null when the unit is not installed. */
  state(unit: string): ServiceState | null;
  /** Starts or stops a unit; throws NumakitError on failure. */
  set(unit: string, state: ServiceState): void;
}

export interface System {
  readonly root: SysRoot;
  /** Null when there is no service manager (no systemd): service changes are then absent. */
  readonly services: ServiceManager | null;
  /** The running tuned daemon, null (or absent) when it does not run: no profile is switched then. */
  readonly tuned?: TunedControl | null;
  /** The running irqbalance's socket, null (or absent) when none: its banned IRQs are then absent. */
  readonly irqbalance?: IrqbalanceControl | null;
  /** True when running as root (uid 0). */
  readonly isRoot: boolean;
  read(rel: string): string | null;
  /** Writes `text` in one write() to an existing file; throws NumakitError naming the path. */
  write(rel: string, text: string): void;
  /** Whether this process may write the file (root always may, so non-root is what this tells). */
  canWrite(rel: string): boolean;
}

function errnoText(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  const why: Record<string, string> = {
    EINVAL: 'invalid value (EINVAL)',
    EACCES: 'permission denied (EACCES)',
    EPERM: 'not permitted (EPERM)',
    EROFS: 'read-only file system (EROFS)',
    EIO: 'refused by the kernel (EIO; a kernel-managed IRQ?)',
    ENOENT: 'no such file (ENOENT)',
    EBUSY: 'busy (EBUSY)',
    ENOMEM: 'out of memory (ENOMEM)',
    ENOSPC: 'no space left (ENOSPC; no free interrupt vectors?)',
    EFAULT: 'bad address (EFAULT)',
    ESRCH: 'no such process (ESRCH)',
    EOVERFLOW: 'value too large (EOVERFLOW)',
  };
  return (err.code && why[err.code]) ?? err.message;
}

/**
 * Writes a kernel knob. /proc/sys and sysfs take the value from a single write() on an
 * existing file (no O_CREAT: a knob that vanished must fail, not become a regular file).
 */
export function writeKnob(path: string, text: string): void {
  const fs = fileOps();
  const data = Buffer.from(text, 'utf8');
  let fd: number | undefined;
  try {
    fd = fs.openSync(path, constants.O_WRONLY | constants.O_TRUNC);
    const n = fs.writeSync(fd, data, 0, data.length);
    // A knob takes its value from one write(); a part of it would be another value.
    if (n !== data.length)
      throw new NumakitError(`${path}: cannot write '${text.trim()}': the kernel took ${n} of ${data.length} bytes`);
  } catch (e) {
    if (e instanceof NumakitError) throw e;
    throw new NumakitError(`${path}: cannot write '${text.trim()}': ${errnoText(e)}`);
  } finally {
    if (fd !== undefined) closeQuietly(fs, fd);
  }
}

function closeQuietly(fs: FileOps, fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // The value was taken by write(); close(2) of a sysfs or procfs file reports nothing more.
  }
}

export interface OpenSystemOptions {
  readonly services?: ServiceManager | null;
  readonly tuned?: TunedControl | null;
  readonly irqbalance?: IrqbalanceControl | null;
  readonly isRoot?: boolean;
}

/** A System on any root: files are read and written under root.dir. */
export function openSystem(root: SysRoot, opts: OpenSystemOptions = {}): System {
  const isRoot = opts.isRoot ?? process.getuid?.() === 0;
  return {
    root,
    services: opts.services ?? null,
    tuned: opts.tuned ?? null,
    irqbalance: opts.irqbalance ?? null,
    isRoot,
    read: (rel) => readText(root, rel),
    write: (rel, text) => writeKnob(rootPath(root, rel), text),
    canWrite: (rel) => {
      if (isRoot) return true;
      try {
        accessSync(rootPath(root, rel), constants.W_OK);
        return true;
      } catch {
        return false;
      }
    },
  };
}
