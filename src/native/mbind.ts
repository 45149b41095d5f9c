// Memory policy of an address range (mbind(2)).
import { fail, libc } from './libc.js';
import { pageSize, type MemoryRange } from './memory.js';
import { describePolicy, nodeMaskArgs, policyHint, type Mempolicy, type NodeMaskOptions } from './mempolicy.js';

/** mbind(2) flags (include/uapi/linux/mempolicy.h). */
export const MPOL_MF_STRICT = 1 << 0;
export const MPOL_MF_MOVE = 1 << 1;
export const MPOL_MF_MOVE_ALL = 1 << 2;

export interface MbindOptions extends NodeMaskOptions {
  /** MPOL_MF_STRICT | MPOL_MF_MOVE | MPOL_MF_MOVE_ALL; default 0 (only future faults follow the policy). */
  flags?: number;
}

/**
 * Applies `policy` to `range`; `range.addr` must be page aligned (see pageAlignedRange).
 * With MPOL_MF_MOVE, pages already present move to the policy's nodes.
 */
export function mbind(range: MemoryRange, policy: Mempolicy, options: MbindOptions = {}): void {
  const { mask, maxnode } = nodeMaskArgs(policy.nodes, options);
  const empty = policy.nodes.length === 0;
  const mode = policy.mode | (policy.modeFlags ?? 0);
  const rc = libc().mbind(range.addr, range.length, mode, empty ? null : mask, empty ? 0 : maxnode, options.flags ?? 0);
  if (rc < 0) {
    const errno = libc().koffi.errno();
    const hint =
      errno === 22 && range.addr % BigInt(pageSize()) !== 0n
        ? 'the start address must be page aligned'
        : policyHint(policy.mode, errno);
    fail('mbind', {
      target: `0x${range.addr.toString(16)}+${range.length}, ${describePolicy(policy)}`,
      hint: errno === 5 ? 'MPOL_MF_STRICT: some pages could not be moved' : hint,
    });
  }
}
