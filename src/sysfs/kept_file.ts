// A file the agent reads every pass (/proc/stat, node/online, cpu/online), kept open on the
// running system and read again with one pread at offset 0: procfs and sysfs regenerate a
// seq_file read from offset 0 (how poll() users of sysfs re-read an attribute), so each pass
// costs one syscall instead of open, fstat, read and close. Any error (the file gone, a read
// the buffer cannot hold), and any other root (a snapshot, a test tree: a jail), go through
// readText (read.ts: the jail, absent reasons, warnings).
import { closeSync, constants, openSync, readSync } from 'node:fs';
import { readText } from './read.js';
import { rootPath, type SysRoot } from './root.js';

/** Large enough for /proc/stat of 1024 CPUs (about 100 bytes a CPU); a larger file is read by readText. */
const BUF_BYTES = 128 * 1024;

export class KeptFile {
  private fd: number | null = null;
  private buf: Buffer | null = null;
  private readonly fast: boolean;

  /** `bufBytes`: the largest text read with one pread (a larger file is read by readText). */
  constructor(
    private readonly root: SysRoot,
    private readonly rel: string,
    private readonly bufBytes = BUF_BYTES,
  ) {
    this.fast = root.isReal && root.tree === undefined && root.onAccess === undefined;
  }

  /** The file's text now, or null when it is absent. */
  read(): string | null {
    if (this.fast) {
      try {
        this.fd ??= openSync(rootPath(this.root, this.rel), constants.O_RDONLY | constants.O_NONBLOCK);
        this.buf ??= Buffer.allocUnsafeSlow(this.bufBytes);
        const n = readSync(this.fd, this.buf, 0, this.bufBytes, 0);
        if (n < this.bufBytes) return this.buf.toString('utf8', 0, n);
      } catch {
        // readText below says what is wrong with it
      }
      this.close();
    }
    return readText(this.root, this.rel);
  }

  close(): void {
    if (this.fd === null) return;
    try {
      closeSync(this.fd);
    } catch {
      // already closed
    }
    this.fd = null;
  }
}
