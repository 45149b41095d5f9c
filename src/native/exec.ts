// Replacing the current process with a command (execvp(3)), keeping the pid, the
// calling thread's memory policy and CPU affinity, and the open stdin/stdout/stderr.
import { fail, libc } from './libc.js';

// Signal numbers and fcntl values common to x86_64 and aarch64 Linux.
const SIGPIPE = 13;
const SIGXFSZ = 25;
const F_GETFD = 1;
const F_SETFD = 2;
const FD_CLOEXEC = 1;
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
 * Undoes what Node changed that a new program would inherit:
 * - Node marks every inherited descriptor close-on-exec at start-up
 *   (uv_disable_stdio_inheritance() in src/node.cc), so without this the command would
 *   start with no stdin/stdout/stderr. Descriptors 0-2, and systemd's socket-activation
 *   range (LISTEN_FDS, starting at 3), are made inheritable again; other inherited
 *   descriptors cannot be told apart from Node's own and stay closed.
 * - Node ignores SIGPIPE and SIGXFSZ (src/node.cc), and ignored signals survive execve(2).
 * - libuv may leave a stdio file description non-blocking, which `cat` and friends do not expect.
 */
function resetInheritedState(): void {
  const c = libc();
  c.signal(SIGPIPE, null); // SIG_DFL is 0
  c.signal(SIGXFSZ, null);
  const forUs = process.env['LISTEN_PID'] === String(process.pid);
  const listenFds = forUs ? Number(process.env['LISTEN_FDS'] ?? 0) : 0;
  const lastFd = 2 + (Number.isInteger(listenFds) && listenFds > 0 && listenFds < 1024 ? listenFds : 0);
  for (let fd = 0; fd <= lastFd; fd++) {
    const fdFlags = c.fcntl(fd, F_GETFD) as number;
    if (fdFlags >= 0 && (fdFlags & FD_CLOEXEC) !== 0) c.fcntl(fd, F_SETFD, 'int', fdFlags & ~FD_CLOEXEC);
    if (fd > 2) continue;
    const flags = c.fcntl(fd, F_GETFL) as number;
    if (flags >= 0 && (flags & O_NONBLOCK) !== 0) c.fcntl(fd, F_SETFL, 'int', flags & ~O_NONBLOCK);
  }
}
