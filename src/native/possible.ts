// Sizes for kernel masks: nr_cpu_ids and nr_node_ids, i.e. the highest id in
// /sys/devices/system/{cpu,node}/possible plus one. Read from the real root only:
// these sizes are for syscalls on this machine, never for a captured tree.
import { readFileSync } from 'node:fs';

/** Highest id in a kernel list like "0-3,8-11" plus one; 0 for an empty list. */
export function parsePossibleCount(text: string): number {
  let max = -1;
  for (const part of text.trim().split(',')) {
    if (part === '') continue;
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (m === null) throw new SyntaxError(`malformed id list '${text.trim()}'`);
    max = Math.max(max, Number(m[2] ?? m[1]));
  }
  return max + 1;
}

function readCount(path: string): number | undefined {
  try {
    return parsePossibleCount(readFileSync(path, 'utf8'));
  } catch (err) {
    // A kernel without CONFIG_NUMA has no node directory: absent, not broken.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

let cpuCount: number | undefined;
let nodeCount: number | undefined;

/** nr_cpu_ids: the size in bits of a CPU mask the kernel accepts. */
export function possibleCpuCount(): number {
  cpuCount ??= readCount('/sys/devices/system/cpu/possible') ?? 1024; // glibc's CPU_SETSIZE
  return cpuCount;
}

/** nr_node_ids: the size in bits of a node mask; 1 on kernels without NUMA. */
export function possibleNodeCount(): number {
  nodeCount ??= readCount('/sys/devices/system/node/possible') ?? 1;
  return nodeCount;
}
