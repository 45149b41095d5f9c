// Ending the process at once with its status, as _exit(2) does. process.exit first joins
// libuv's pool and V8's worker threads and runs exit handlers: a pool thread still blocked in a
// system call (a poll, a page move) holds the process until that call returns, and under
// emulation on a loaded host the joins alone took hundreds of milliseconds. For a daemon whose
// stop a supervisor waits for, once it has put everything back and said so.
import { libc } from './libc.js';

/** What may still hold output: a stream written asynchronously (a TTY on some platforms, a slow pipe). */
export interface PendingOutput {
  readonly writableLength: number;
}

/**
 * Ends the process with `code` now (_exit(2)); process.exit instead while stdout or stderr still
 * holds output to write (_exit would lose it). On Linux, Node writes pipes and files
 * synchronously, so everything said is already written when this runs.
 */
export function exitNow(code: number, streams: readonly PendingOutput[] = [process.stdout, process.stderr]): void {
  if (streams.some((s) => s.writableLength > 0)) process.exit(code);
  libc()._exit(code);
}
