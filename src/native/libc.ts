// The one place koffi is loaded, lazily on the first native call: commands that never
// touch the kernel's policy interfaces (topo, snapshot ...) never pay for it.
//
// Fault injection: interceptLibc(wrap) replaces the bound calls of the table with wrap's
// versions (which may fail a call by setting errno with koffi.errno(n) and returning -1, or
// rewrite move_pages' per-page statuses), so a test drives the real error paths of every
// caller. It costs nothing when off: libc() returns the same table either way, and nothing is
// checked per call. Only code can switch it on: no environment variable, option or file is
// read for it, and the shipped CLI never calls interceptLibc (the tests' preload module,
// test/helpers/native_faults_preload.ts, is not part of the package).
import type * as KoffiModule from 'koffi';
import { loadKoffi } from './koffi_load.js';
import { NativeError, NativeUnsupportedError, type NativeErrorOptions } from './errors.js';

// mmap(2)'s protection and flags for a shared mapping read and written in place (shm.ts's
// files, perf's ring buffer): asm-generic/mman-common.h and uapi/linux/mman.h, x86_64 and aarch64.
export const PROT_READ = 1;
export const PROT_WRITE = 2;
export const MAP_SHARED = 1;

/** A C function through koffi: any arguments koffi can convert, an int result. */
type Fn = (...args: unknown[]) => number;
/** The same, also callable on the libuv pool: `async(...args, (err, result) => ...)`. */
type AsyncFn = Fn & { async: (...args: unknown[]) => void };

/** Raw bindings. Integer results are C return values; failures leave errno set. */
export interface Libc {
  koffi: typeof KoffiModule;
  sched_getaffinity: Fn;
  sched_setaffinity: Fn;
  getcpu: Fn;
  set_mempolicy: Fn;
  get_mempolicy: Fn;
  mbind: Fn;
  move_pages: Fn;
  migrate_pages: Fn;
  execvp: Fn;
  /** Returns the previous handler (a pointer), which nothing here reads. */
  signal: (...args: unknown[]) => unknown;
  fcntl: Fn;
  getpagesize: Fn;
  madvise: Fn;
  getrusage: Fn;
  ftok: Fn;
  shmget: Fn;
  shmat: Fn;
  shmdt: Fn;
  shmctl: Fn;
  mmap: Fn;
  munmap: Fn;
  perf_event_open: Fn;
  /** mmap returning a pointer (koffi.view reads through it): perf's ring buffer. */
  mmapPointer: (...args: unknown[]) => unknown;
  munmapPointer: Fn;
  socket: Fn;
  sendto: Fn;
  connect: Fn;
  setsockopt: Fn;
  /** setsockopt(SO_ATTACH_FILTER): the value is { len, filter: a Buffer of struct sock_filter }. */
  setsockoptFilter: Fn;
  bind: Fn;
  getsockname: Fn;
  recv: Fn;
  write: Fn;
  read: Fn;
  close: Fn;
  /** poll(2) on a Buffer of struct pollfd; its `async` waits on the libuv pool. */
  poll: AsyncFn;
  pipe2: Fn;
  /** _exit(2): the process ends here, nothing run or joined on the way. */
  _exit: (status: number) => void;
}

// Numbers from the kernel's syscall tables: arch/x86/entry/syscalls/syscall_64.tbl and
// include/uapi/asm-generic/unistd.h (used by arm64).
const SYSCALLS = {
  x64: {
    mbind: 237,
    set_mempolicy: 238,
    get_mempolicy: 239,
    migrate_pages: 256,
    move_pages: 279,
    getcpu: 309,
    perf_event_open: 298,
  },
  arm64: {
    mbind: 235,
    set_mempolicy: 237,
    get_mempolicy: 236,
    migrate_pages: 238,
    move_pages: 239,
    getcpu: 168,
    perf_event_open: 241,
  },
} as const;

export type SyscallName = keyof (typeof SYSCALLS)['x64'];

/** The syscall number of `name` on `arch` (default: this process's). */
export function syscallNumber(name: SyscallName, arch: string = process.arch): number {
  const table = (SYSCALLS as Record<string, Record<SyscallName, number>>)[arch];
  if (table === undefined) throw new NativeUnsupportedError(`numakit has no syscall table for architecture '${arch}'`);
  return table[name];
}

let cached: Libc | undefined;
let real: Libc | undefined;

/** The calls interceptLibc can replace: every syscall a command makes on the kernel's NUMA state, plus exec. */
export const FAULTABLE = [
  'sched_getaffinity',
  'sched_setaffinity',
  'set_mempolicy',
  'get_mempolicy',
  'mbind',
  'move_pages',
  'migrate_pages',
  'execvp',
] as const;
export type FaultableCall = (typeof FAULTABLE)[number];

/** Given a call's name and its real binding, the function to use instead. */
export type LibcWrap = (name: FaultableCall, real: Fn, koffi: typeof KoffiModule) => Fn;

/** Tests only (see the header): every later call of FAULTABLE goes through `wrap`; null restores the real table. */
export function interceptLibc(wrap: LibcWrap | null): void {
  const base = bind();
  if (wrap === null) {
    cached = base;
    return;
  }
  const table: Libc = { ...base };
  for (const name of FAULTABLE) table[name] = wrap(name, base[name], base.koffi);
  cached = table;
}

/** Loads koffi and binds libc on first use. */
export function libc(): Libc {
  return cached ?? (cached = bind());
}

function bind(): Libc {
  if (real !== undefined) return real;
  if (process.platform !== 'linux')
    throw new NativeUnsupportedError(`NUMA syscalls need Linux, not ${process.platform}`);
  const koffi = loadKoffi();
  const lib = koffi.load('libc.so.6');
  // A classic BPF program (SO_ATTACH_FILTER): its length and a pointer to its instructions.
  koffi.struct('sock_fprog', { len: 'uint16_t', filter: 'void *' });
  // glibc's syscall() is variadic; on x86_64 and aarch64 Linux a variadic callee reads integer
  // and pointer arguments from the same registers as a fixed one, so each syscall gets its
  // own fixed prototype (cheaper than koffi's variadic calls, which need types per call).
  const sys = (name: SyscallName, params: string): Fn => {
    const nr = syscallNumber(name);
    const f = lib.func(`long syscall(long nr, ${params})`);
    return f.bind(null, nr);
  };
  real = {
    koffi,
    sched_getaffinity: lib.func('int sched_getaffinity(int pid, size_t size, void *mask)'),
    sched_setaffinity: lib.func('int sched_setaffinity(int pid, size_t size, void *mask)'),
    getcpu: sys('getcpu', 'void *cpu, void *node, void *unused'),
    set_mempolicy: sys('set_mempolicy', 'long mode, void *nmask, unsigned long maxnode'),
    get_mempolicy: sys(
      'get_mempolicy',
      'void *mode, void *nmask, unsigned long maxnode, uintptr_t addr, unsigned long flags',
    ),
    mbind: sys(
      'mbind',
      'uintptr_t addr, unsigned long len, long mode, void *nmask, unsigned long maxnode, unsigned long flags',
    ),
    move_pages: sys('move_pages', 'long pid, unsigned long count, void *pages, void *nodes, void *status, long flags'),
    migrate_pages: sys('migrate_pages', 'long pid, unsigned long maxnode, void *old_nodes, void *new_nodes'),
    execvp: lib.func('int execvp(const char *file, const char **argv)'),
    signal: lib.func('void *signal(int sig, void *handler)'),
    fcntl: lib.func('int fcntl(int fd, int cmd, ...)'),
    getpagesize: lib.func('int getpagesize()'),
    madvise: lib.func('int madvise(uintptr_t addr, size_t length, int advice)'),
    getrusage: lib.func('int getrusage(int who, void *usage)'),
    ftok: lib.func('int ftok(const char *path, int id)'),
    shmget: lib.func('int shmget(int key, size_t size, int flags)'),
    // Addresses as intptr_t: (void *) -1 is the error, and user addresses fit in 2^53.
    shmat: lib.func('intptr_t shmat(int id, intptr_t addr, int flags)'),
    shmdt: lib.func('int shmdt(intptr_t addr)'),
    shmctl: lib.func('int shmctl(int id, int cmd, void *buf)'),
    mmap: lib.func('intptr_t mmap(intptr_t addr, size_t length, int prot, int flags, int fd, int64_t offset)'),
    munmap: lib.func('int munmap(intptr_t addr, size_t length)'),
    perf_event_open: sys('perf_event_open', 'void *attr, long pid, long cpu, long group_fd, unsigned long flags'),
    mmapPointer: lib.func('void *mmap(void *addr, size_t length, int prot, int flags, int fd, int64_t offset)'),
    munmapPointer: lib.func('int munmap(void *addr, size_t length)'),
    socket: lib.func('int socket(int domain, int type, int protocol)'),
    sendto: lib.func('long sendto(int fd, const void *buf, size_t len, int flags, const void *addr, uint32_t addrlen)'),
    connect: lib.func('int connect(int fd, const void *addr, uint32_t len)'),
    setsockopt: lib.func('int setsockopt(int fd, int level, int name, const void *value, uint32_t len)'),
    setsockoptFilter: lib.func('int setsockopt(int fd, int level, int name, const sock_fprog *value, uint32_t len)'),
    bind: lib.func('int bind(int fd, const void *addr, uint32_t len)'),
    getsockname: lib.func('int getsockname(int fd, _Out_ void *addr, _Inout_ uint32_t *len)'),
    recv: lib.func('long recv(int fd, _Out_ void *buf, size_t len, int flags)'),
    write: lib.func('long write(int fd, const void *buf, size_t count)'),
    read: lib.func('long read(int fd, _Out_ void *buf, size_t count)'),
    close: lib.func('int close(int fd)'),
    poll: lib.func('int poll(void *fds, unsigned long nfds, int timeout)') as unknown as AsyncFn,
    pipe2: lib.func('int pipe2(_Out_ int *fds, int flags)'),
    _exit: lib.func('void _exit(int status)') as unknown as (status: number) => void,
  };
  return real;
}

/** Throws a NativeError for `syscall` from the errno the last call left. */
export function fail(syscall: string, options?: NativeErrorOptions): never {
  throw new NativeError(syscall, libc().koffi.errno(), options);
}
