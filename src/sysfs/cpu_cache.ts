// /sys/devices/system/cpu/cpuN/cache/indexM/{level,type,size,shared_cpu_list}: the caches a CPU
// uses. Absent in some VMs and containers; then the bench cannot size arrays by the cache.
import { parseCpuList } from '../model/cpuset.js';
import { SysfsParseError } from '../model/errors.js';
import { CPU_DIR } from './cpu_topology.js';
import { integerIn } from './parse_util.js';
import { listDir, readText } from './read.js';
import { readParsed } from './read_parsed.js';
import type { SysRoot } from './root.js';

export interface CacheInfo {
  readonly level: number;
  /** Data, Instruction or Unified. */
  readonly type: string;
  readonly sizeBytes: number;
  readonly sharedCpus: number[];
}

/** "32768K", "1M", "512" (bytes) -> bytes. */
export function parseCacheSize(text: string): number {
  const m = /^\s*(\d{1,12})\s*([KMG]?)\s*$/.exec(text);
  if (m === null) throw new SysfsParseError('not a cache size like 32768K', { text: text.trim() });
  const bytes = Number(m[1]) * { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[m[2] as '' | 'K' | 'M' | 'G'];
  if (!Number.isSafeInteger(bytes)) throw new SysfsParseError('cache size beyond 2^53 bytes', { text: text.trim() });
  return bytes;
}

/** Every cache of `cpu` with a level, size and shared CPU list; [] when cache/ is absent. */
export function readCpuCaches(root: SysRoot, cpu: number): CacheInfo[] {
  const dir = `${CPU_DIR}/cpu${cpu}/cache`;
  const out: CacheInfo[] = [];
  for (const idx of listDir(root, dir) ?? []) {
    if (!/^index\d+$/.test(idx)) continue;
    const p = `${dir}/${idx}`;
    const level = readParsed(root, `${p}/level`, integerIn(0, 9));
    const sizeBytes = readParsed(root, `${p}/size`, parseCacheSize);
    if (level === null || sizeBytes === null) continue;
    out.push({
      level,
      type: readText(root, `${p}/type`)?.trim() ?? 'Unified',
      sizeBytes,
      sharedCpus: readParsed(root, `${p}/shared_cpu_list`, parseCpuList) ?? [cpu],
    });
  }
  return out;
}

/** The last-level (highest, not instruction) cache of `cpu`, or null when unknown. */
export function lastLevelCache(caches: readonly CacheInfo[]): CacheInfo | null {
  let best: CacheInfo | null = null;
  for (const c of caches) if (c.type !== 'Instruction' && (best === null || c.level > best.level)) best = c;
  return best;
}
