// The syscall layer. Importing it does not load koffi; the first call does.
export { NativeError, NativeUnsupportedError, errnoName, errnoMessage } from './errors.js';
export { BITS_PER_LONG, MAX_MASK_BITS, fromMask, longsFor, maskBitsFor, toMask } from './mask.js';
export { possibleCpuCount, possibleNodeCount, parsePossibleCount } from './possible.js';
export { syscallNumber } from './libc.js';
export { getAffinity, setAffinity, getcpu, type CpuMaskOptions } from './affinity.js';
export * from './mempolicy.js';
export { mbind, MPOL_MF_STRICT, MPOL_MF_MOVE, MPOL_MF_MOVE_ALL, type MbindOptions } from './mbind.js';
export { addressOf, pageAddresses, pageAlignedRange, pageSize, type MemoryRange } from './memory.js';
export {
  queryPages,
  movePages,
  movePagesInto,
  decodeStatus,
  type PageStatus,
  type PagesOptions,
  type MovePagesOptions,
} from './move_pages.js';
export { migratePages } from './migrate_pages.js';
export { execvp } from './exec.js';
export { madvise, MADV_DONTNEED, MADV_HUGEPAGE, MADV_NOHUGEPAGE } from './madvise.js';
export { childrenRusage, parseRusage } from './rusage.js';
export {
  ftok,
  shmget,
  shmSize,
  shmRemove,
  shmat,
  shmdt,
  mmapShared,
  munmap,
  populateRead,
  IPC_CREAT,
  SHM_HUGETLB,
} from './shm.js';
