// Moving all of a process's pages between node sets (migrate_pages(2)).
import { fail, libc } from './libc.js';
import { nodeMaskArgs, type NodeMaskOptions } from './mempolicy.js';

/**
 * Moves the pages of `pid` (0 = the caller) that are on `from` nodes to `to` nodes.
 * Returns the number of pages that could not be moved.
 */
export function migratePages(
  pid: number,
  nodes: { from: readonly number[]; to: readonly number[] },
  options: NodeMaskOptions = {},
): number {
  const from = nodeMaskArgs(nodes.from, options);
  const to = nodeMaskArgs(nodes.to, options);
  const rc = libc().migrate_pages(pid, from.maxnode, from.mask, to.mask);
  if (rc < 0) {
    fail('migrate_pages', {
      target: `pid ${pid}, nodes ${nodes.from.join(',')} -> ${nodes.to.join(',')}`,
      hint: libc().koffi.errno() === 1 ? "moving another user's process needs CAP_SYS_NICE" : undefined,
    });
  }
  return Number(rc);
}
