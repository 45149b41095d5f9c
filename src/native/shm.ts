// SysV shared memory and shared file mappings (shmget(2), shmat(2), shmctl(2), ftok(3), mmap(2)):
// what `run --shm` and `run --file` attach before they set a policy on the range (mbind).
// Values from include/uapi/linux/ipc.h, shm.h and asm-generic/mman-common.h (x86_64 and aarch64).
import { fail, libc, MAP_SHARED, PROT_READ, PROT_WRITE } from './libc.js';
import type { MemoryRange } from './memory.js';

export const IPC_CREAT = 0o1000;
export const SHM_HUGETLB = 0o4000;
const IPC_RMID = 0;
const IPC_STAT = 2;
/** madvise(MADV_POPULATE_READ), Linux 5.14: fault a range in as reads would. */
const MADV_POPULATE_READ = 22;

/** The key of (path, id), or null when path does not exist (ftok stats it). */
export function ftok(path: string, id: number): number | null {
  const key = libc().ftok(path, id) as number;
  if (key !== -1) return key;
  if (libc().koffi.errno() === 2) return null;
  fail('ftok', { target: path });
}

/** The segment of `key`, or null when there is none and `flags` lacks IPC_CREAT. */
export function shmget(key: number, size: number, flags: number): number | null {
  const id = libc().shmget(key, size, flags) as number;
  if (id >= 0) return id;
  if (libc().koffi.errno() === 2 && (flags & IPC_CREAT) === 0) return null;
  const errno = libc().koffi.errno();
  fail('shmget', {
    target: `key 0x${(key >>> 0).toString(16)}, ${size} bytes`,
    hint:
      errno === 12 && (flags & SHM_HUGETLB) !== 0
        ? 'not enough huge pages reserved (vm.nr_hugepages, /proc/sys/vm/hugetlb_shm_group)'
        : errno === 22
          ? 'the size is outside SHMMIN..SHMMAX, or larger than the existing segment'
          : undefined,
  });
}

/** The size of segment `id` in bytes (IPC_STAT's shm_segsz). */
export function shmSize(id: number): number {
  // struct shmid_ds: struct ipc_perm is 48 bytes on x86_64 and aarch64 (glibc), then size_t shm_segsz.
  const buf = new BigUint64Array(16);
  if ((libc().shmctl(id, IPC_STAT, buf) as number) < 0) fail('shmctl', { target: `IPC_STAT of segment ${id}` });
  return Number(buf[6]!);
}

/** Removes segment `id` once the last process detaches (tests). */
export function shmRemove(id: number): void {
  if ((libc().shmctl(id, IPC_RMID, null) as number) < 0) fail('shmctl', { target: `IPC_RMID of segment ${id}` });
}

/** Attaches segment `id` read-write at an address the kernel picks. */
export function shmat(id: number): bigint {
  const addr = BigInt(libc().shmat(id, 0, 0) as number | bigint);
  if (addr === -1n) fail('shmat', { target: `segment ${id}` });
  return addr;
}

export function shmdt(addr: bigint): void {
  if ((libc().shmdt(addr) as number) < 0) fail('shmdt', { target: `0x${addr.toString(16)}` });
}

/** Maps `length` bytes of open file `fd` from `offset`, shared and read-write. */
export function mmapShared(fd: number, length: number, offset: number): bigint {
  const addr = BigInt(libc().mmap(0, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset) as number | bigint);
  if (addr === -1n) fail('mmap', { target: `fd ${fd}, ${length} bytes at offset ${offset}` });
  return addr;
}

export function munmap(range: MemoryRange): void {
  if ((libc().munmap(range.addr, range.length) as number) < 0)
    fail('munmap', { target: `0x${range.addr.toString(16)}+${range.length}` });
}

/**
 * Faults every page of `range` in as reads would, allocating under the range's policy. False
 * when this kernel lacks MADV_POPULATE_READ (before 5.14): the caller touches page by page.
 */
export function populateRead(range: MemoryRange): boolean {
  if ((libc().madvise(range.addr, range.length, MADV_POPULATE_READ) as number) === 0) return true;
  if (libc().koffi.errno() === 22) return false;
  fail('madvise', { target: `0x${range.addr.toString(16)}+${range.length}, MADV_POPULATE_READ` });
}
