// Advice on an address range (madvise(2)): drop its pages, or ask for transparent huge pages.
import { fail, libc } from './libc.js';
import type { MemoryRange } from './memory.js';

/** include/uapi/asm-generic/mman-common.h (the same on x86_64 and aarch64). */
export const MADV_DONTNEED = 4;
export const MADV_HUGEPAGE = 14;
export const MADV_NOHUGEPAGE = 15;

const NAMES: Readonly<Record<number, string>> = {
  [MADV_DONTNEED]: 'MADV_DONTNEED',
  [MADV_HUGEPAGE]: 'MADV_HUGEPAGE',
  [MADV_NOHUGEPAGE]: 'MADV_NOHUGEPAGE',
};

/**
 * madvise(range, advice). MADV_DONTNEED on private anonymous memory frees the pages: the next
 * touch faults in zero pages under the range's current memory policy. MADV_HUGEPAGE fails with
 * EINVAL on kernels without CONFIG_TRANSPARENT_HUGEPAGE.
 */
export function madvise(range: MemoryRange, advice: number): void {
  if (libc().madvise(range.addr, range.length, advice) < 0) {
    fail('madvise', {
      target: `0x${range.addr.toString(16)}+${range.length}, ${NAMES[advice] ?? advice}`,
      hint:
        advice === MADV_HUGEPAGE && libc().koffi.errno() === 22
          ? 'this kernel has no transparent huge pages'
          : undefined,
    });
  }
}
