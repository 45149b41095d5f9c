// Which node a physical address is on: memory is onlined in blocks of
// /sys/devices/system/memory/block_size_bytes (hex, no 0x: "8000000"), and each node directory
// links the blocks it holds (/sys/devices/system/node/nodeN/memoryM: block M covers
// [M x size, (M + 1) x size)); Documentation/admin-guide/mm/memory-hotplug.rst.
import { listNodeDirs } from './node_list.js';
import { listDir, readText } from './read.js';
import type { SysRoot } from './root.js';

export interface MemoryBlocks {
  readonly blockBytes: bigint;
  /** Block number -> node. */
  readonly nodeOf: ReadonlyMap<number, number>;
}

/** The block size; null when the file is absent or not hex. */
export function parseBlockSize(text: string): bigint | null {
  const t = text.trim().replace(/^0x/i, '');
  return /^[0-9a-f]+$/i.test(t) && BigInt(`0x${t}`) > 0n ? BigInt(`0x${t}`) : null;
}

export function readMemoryBlocks(root: SysRoot): MemoryBlocks | null {
  const size = readText(root, 'sys/devices/system/memory/block_size_bytes');
  const blockBytes = size === null ? null : parseBlockSize(size);
  if (blockBytes === null) return null;
  const nodeOf = new Map<number, number>();
  for (const n of listNodeDirs(root))
    for (const e of listDir(root, `sys/devices/system/node/node${n}`) ?? []) {
      const m = /^memory(\d+)$/.exec(e);
      if (m) nodeOf.set(Number(m[1]), n);
    }
  return { blockBytes, nodeOf };
}

/** The node of a physical address, or null when its block is not listed. */
export function nodeOfPhys(blocks: MemoryBlocks, phys: bigint): number | null {
  return blocks.nodeOf.get(Number(phys / blocks.blockBytes)) ?? null;
}
