// Where numakit's output goes. process.stdout is a stream Node builds on first use (for a pipe a
// socket, for a file or /dev/null a SyncWriteStream, for a terminal a tty.WriteStream): about 20
// of Node's internal modules, 1-2 ms of CPU at every start. When fd 1 cannot be a terminal the
// output is written straight to it; a terminal keeps the stream (top's screen, stat's width and
// colours ask it). Writes to a pipe, file or terminal are synchronous on Linux either way, so
// the order of output is the same.
import { fstatSync, writeSync, type Stats } from 'node:fs';

/** Linux's major(): glibc's encoding of st_rdev (12 low bits at 8, the rest above 32). */
function major(rdev: number): number {
  return ((rdev >>> 8) & 0xfff) | (Math.floor(rdev / 2 ** 32) & ~0xfff);
}

/**
 * True when a file with this status is no terminal: not a character device, or one of the memory
 * devices (char major 1: /dev/null, /dev/zero, /dev/full; Documentation/admin-guide/devices.txt).
 */
export function cannotBeTerminal(st: Pick<Stats, 'rdev' | 'isCharacterDevice'>): boolean {
  return !st.isCharacterDevice() || major(st.rdev) === 1;
}

let direct: boolean | undefined;

/** Whether output goes straight to fd 1 (decided at the first call: fd 1 does not change while numakit runs). */
export function stdoutDirect(): boolean {
  if (direct === undefined) {
    try {
      direct = cannotBeTerminal(fstatSync(1));
    } catch {
      direct = false; // no fd 1: let the stream say so, as before
    }
  }
  return direct;
}

const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/**
 * Writes all of `text` to fd 1 (`fd` for a test). A reader that went away (numakit topo | head) ends numakit with
 * exit 0, any other failure with exit 1, as the stream's 'error' handler did; a full pipe set
 * non-blocking by whoever shares it (EAGAIN) is waited on a millisecond at a time.
 */
export function writeStdout(text: string, fd = 1): void {
  const buf = Buffer.from(text, 'utf8');
  for (let off = 0; off < buf.length; ) {
    try {
      off += writeSync(fd, buf, off);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN') Atomics.wait(PAUSE, 0, 0, 1);
      else process.exit(code === 'EPIPE' ? 0 : 1);
    }
  }
}
