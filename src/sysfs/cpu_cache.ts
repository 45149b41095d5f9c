// /sys/devices/system/cpu/cpuN/cache/indexM/{level,type,size,shared_cpu_list}: the caches a CPU
// uses (Documentation/ABI/testing/sysfs-devices-system-cpu). Absent in some VMs, containers and
// arm64 kernels without cacheinfo: then there are no caches, never guessed ones. A cache whose
// `size` is absent (some firmware, older captures) keeps its level and sharing, size unknown.
import { parseCpuList } from '../model/cpuset.js';
import { SysfsParseError } from '../model/errors.js';
import type { Cache, CacheType } from '../model/topology.js';
import { CPU_DIR } from './cpu_topology.js';
import { integerIn } from './parse_util.js';
import { listDir } from './read.js';
import { readParsed } from './read_parsed.js';
import type { SysRoot } from './root.js';

/** A cache as one CPU's cache/indexM describes it (the model's Cache). */
export type CacheInfo = Cache;

/** "32768K", "1M", "512" (bytes) -> bytes. */
export function parseCacheSize(text: string): number {
  const m = /^\s*(\d{1,12})\s*([KMG]?)\s*$/.exec(text);
  if (m === null) throw new SysfsParseError('not a cache size like 32768K', { text: text.trim() });
  const bytes = Number(m[1]) * { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[m[2] as '' | 'K' | 'M' | 'G'];
  if (!Number.isSafeInteger(bytes)) throw new SysfsParseError('cache size beyond 2^53 bytes', { text: text.trim() });
  return bytes;
}

/** The kernel writes Data, Instruction or Unified (cache_type_string in drivers/base/cacheinfo.c). */
export function parseCacheType(text: string): CacheType {
  const t = text.trim();
  if (t === 'Data' || t === 'Instruction' || t === 'Unified') return t;
  throw new SysfsParseError('not a cache type (Data, Instruction or Unified)', { text: t });
}

const parseLevel = integerIn(1, 9);

/** One cache index of `cpu`; null when its level or type cannot be read (the index says nothing usable). */
function readCacheIndex(root: SysRoot, cpu: number, idx: string): CacheInfo | null {
  const p = `${CPU_DIR}/cpu${cpu}/cache/${idx}`;
  const level = readParsed(root, `${p}/level`, parseLevel);
  const type = readParsed(root, `${p}/type`, parseCacheType);
  if (level === null || type === null) return null;
  return {
    level,
    type,
    sizeBytes: readParsed(root, `${p}/size`, parseCacheSize),
    cpus: readParsed(root, `${p}/shared_cpu_list`, parseCpuList) ?? [cpu],
  };
}

function cacheIndexes(root: SysRoot, cpu: number): string[] {
  return (listDir(root, `${CPU_DIR}/cpu${cpu}/cache`) ?? []).filter((n) => /^index\d{1,3}$/.test(n)).sort();
}

/** Every cache of `cpu`; [] when cache/ is absent. */
export function readCpuCaches(root: SysRoot, cpu: number): CacheInfo[] {
  return cacheIndexes(root, cpu)
    .map((idx) => readCacheIndex(root, cpu, idx))
    .filter((c): c is CacheInfo => c !== null);
}

/**
 * The distinct caches of `cpus` (one entry per cache, whatever number of CPUs share it), in
 * CPU then index order. With `shared`, an index a CPU shares with a CPU read before it (same
 * indexM name, the CPU in that one's shared_cpu_list) is not read again: the kernel numbers a
 * CPU's indexes the same way on every CPU of a machine, and shared_cpu_list is symmetric. A
 * 2-socket SMT server reads each core's L1/L2 once and each L3 once.
 */
export function readMachineCaches(root: SysRoot, cpus: readonly number[], opts: { shared: boolean }): CacheInfo[] {
  const covered = new Map<string, Set<number>>();
  const seen = new Set<string>();
  const out: CacheInfo[] = [];
  // The indexes of the CPU listed last. A CPU that shares every one of them with CPUs read before
  // it shares its L1 with one of them: a thread of a core already read (SMT threads share all
  // the core's caches), with nothing left to read, so its cache/ is not listed either.
  let last: string[] = [];
  for (const cpu of cpus) {
    if (opts.shared && last.length > 0 && last.every((idx) => covered.get(idx)?.has(cpu))) continue;
    last = cacheIndexes(root, cpu);
    for (const idx of last) {
      if (opts.shared && covered.get(idx)?.has(cpu)) continue;
      const c = readCacheIndex(root, cpu, idx);
      if (c === null) continue;
      const sharers = c.cpus.includes(cpu) ? c.cpus : [...c.cpus, cpu].sort((a, b) => a - b);
      const set = covered.get(idx) ?? covered.set(idx, new Set()).get(idx)!;
      for (const s of sharers) set.add(s);
      const key = `${c.level}/${c.type}/${sharers.join(',')}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ ...c, cpus: sharers });
    }
  }
  return out;
}

/** The last-level (highest, not instruction) cache of `cpu`, or null when unknown. */
export function lastLevelCache(caches: readonly CacheInfo[]): CacheInfo | null {
  let best: CacheInfo | null = null;
  for (const c of caches) if (c.type !== 'Instruction' && (best === null || c.level > best.level)) best = c;
  return best;
}
