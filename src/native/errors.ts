// Errors from the syscall layer: errno turned into a typed error that names the call,
// what it was called on, the errno name and a readable message.
import { constants } from 'node:os';
import { getSystemErrorMap } from 'node:util';

// strerror(3) wording for the errnos these calls return (libuv's map words some oddly,
// e.g. EFAULT "bad address in system call argument", and lacks ENOEXEC).
const MESSAGES: Readonly<Record<string, string>> = {
  EPERM: 'Operation not permitted',
  ENOENT: 'No such file or directory',
  ESRCH: 'No such process',
  EINTR: 'Interrupted system call',
  EIO: 'Input/output error',
  E2BIG: 'Argument list too long',
  ENOEXEC: 'Exec format error',
  EBADF: 'Bad file descriptor',
  EAGAIN: 'Resource temporarily unavailable',
  ENOMEM: 'Cannot allocate memory',
  EACCES: 'Permission denied',
  EFAULT: 'Bad address',
  EBUSY: 'Device or resource busy',
  EXDEV: 'Invalid cross-device link',
  ENODEV: 'No such device',
  ENOTDIR: 'Not a directory',
  EISDIR: 'Is a directory',
  EINVAL: 'Invalid argument',
  ETXTBSY: 'Text file busy',
  ENAMETOOLONG: 'File name too long',
  ENOSYS: 'Function not implemented',
  ELOOP: 'Too many levels of symbolic links',
  EOPNOTSUPP: 'Operation not supported',
};

let names: Map<number, string> | undefined;

/** The symbolic name of an errno ("ESRCH"), or "E<n>" when unknown. */
export function errnoName(errno: number): string {
  if (names === undefined) {
    names = new Map();
    for (const [name, value] of Object.entries(constants.errno)) {
      // Several names share a number on Linux (EAGAIN/EWOULDBLOCK, ENOTSUP/EOPNOTSUPP): keep the first.
      if (!names.has(value)) names.set(value, name);
    }
  }
  return names.get(errno) ?? `E${errno}`;
}

/** strerror-style text for an errno ("No such process"). */
export function errnoMessage(errno: number): string {
  const known = MESSAGES[errnoName(errno)];
  if (known !== undefined) return known;
  const uv = getSystemErrorMap().get(-errno)?.[1];
  return uv !== undefined ? uv.charAt(0).toUpperCase() + uv.slice(1) : `Unknown error ${errno}`;
}

export interface NativeErrorOptions {
  /** What the call acted on, e.g. "pid 1234" or "nodes 0,5". */
  target?: string;
  /** One sentence on the likely cause for this call, e.g. the kernel version a mode needs. */
  hint?: string;
}

/**
 * A failed syscall or libc call. `message` is one line:
 * `set_mempolicy (nodes 5): Invalid argument (EINVAL); node 5 is not allowed`.
 */
export class NativeError extends Error {
  override readonly name = 'NativeError';
  readonly errno: number;
  /** Symbolic errno name, e.g. "ESRCH". */
  readonly code: string;
  readonly syscall: string;

  constructor(syscall: string, errno: number, options: NativeErrorOptions = {}) {
    const code = errnoName(errno);
    const where = options.target !== undefined ? `${syscall} (${options.target})` : syscall;
    const hint = options.hint !== undefined ? `; ${options.hint}` : '';
    super(`${where}: ${errnoMessage(errno)} (${code})${hint}`);
    this.errno = errno;
    this.code = code;
    this.syscall = syscall;
  }
}

/** Thrown when the platform has no binding (not Linux, or an architecture without a syscall table). */
export class NativeUnsupportedError extends Error {
  override readonly name = 'NativeUnsupportedError';
}
