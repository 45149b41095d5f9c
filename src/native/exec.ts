// Replacing the current process with a command (execvp(3)), keeping the pid, the
// calling thread's memory policy and CPU affinity, and the open stdin/stdout/stderr.
import { fail, libc } from './libc.js';

// Signal numbers and fcntl values common to x86_64 and aarch64 Linux.
const SIGPIPE = 13;
const SIGXFSZ = 25;
const F_GETFL = 3;
const F_SETFL = 4;
const O_NONBLOCK = 0o4000;

/**
 * Execs `file` (searched in PATH when it has no slash) with `argv` (argv[0] included).
 * Returns only by throwing a NativeError (ENOENT, EACCES, ENOEXEC ...).
 */
export function execvp(file: string, argv: readonly string[]): never {
  const c = libc();
  resetInheritedState();
  c.execvp(file, [...argv, null]);
  fail('execvp', { target: file });
}

/**
 * Undoes what Node changed that a new program would inherit: Node ignores SIGPIPE and
 * SIGXFSZ at start-up (src/node.cc), and ignored signals survive execve(2); libuv may
 * leave stdio file descriptions non-blocking, which a program like cat does not expect.
 */
function resetInheritedState(): void {
  const c = libc();
  c.signal(SIGPIPE, null); // SIG_DFL is 0
  c.signal(SIGXFSZ, null);
  for (let fd = 0; fd <= 2; fd++) {
    const flags = c.fcntl(fd, F_GETFL) as number;
    if (flags >= 0 && (flags & O_NONBLOCK) !== 0) c.fcntl(fd, F_SETFL, 'int', flags & ~O_NONBLOCK);
  }
}
