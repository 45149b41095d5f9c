// The records perf_event_open(2) writes into its mmap ring buffer, as include/uapi/linux/
// perf_event.h lays them out: each a struct perf_event_header { u32 type; u16 misc; u16 size }
// then its body. A PERF_RECORD_SAMPLE (type 9) body holds, in this fixed order, one field per
// bit of the event's sample_type that is set (the order of the bits, "{ u64 id; } && PERF_SAMPLE_
// IDENTIFIER", "{ u64 ip; } && PERF_SAMPLE_IP" ... in perf_event.h's comment on
// PERF_RECORD_SAMPLE). It is the same byte stream `perf record` copies into perf.data's data
// section. Only the fields memory-access sampling asks for are decoded; a sample_type with any
// other bit is refused (its fields would shift the ones after). Little-endian (x86_64, arm64).
// Pure.
import type { MemSample } from '../model/access_locality.js';
import { SysfsParseError } from '../model/errors.js';

export const PERF_SAMPLE = {
  IP: 1n << 0n,
  TID: 1n << 1n,
  TIME: 1n << 2n,
  ADDR: 1n << 3n,
  CPU: 1n << 7n,
  PERIOD: 1n << 8n,
  WEIGHT: 1n << 14n,
  DATA_SRC: 1n << 15n,
  IDENTIFIER: 1n << 16n,
  PHYS_ADDR: 1n << 19n,
} as const;

const KNOWN = Object.values(PERF_SAMPLE).reduce((a, b) => a | b, 0n);

export const PERF_RECORD_LOST = 2;
export const PERF_RECORD_SAMPLE = 9;

export interface SampleStream {
  readonly samples: MemSample[];
  /** Samples the kernel dropped (PERF_RECORD_LOST: the buffer was full). */
  readonly lost: number;
  /** Records of other types (mmap, comm, throttle ...), skipped. */
  readonly other: number;
}

/** The records of `bytes` (a whole number of records, as read from the ring between tail and head). */
export function parsePerfSamples(bytes: Uint8Array, sampleType: bigint): SampleStream {
  const extra = sampleType & ~KNOWN;
  if (extra !== 0n)
    throw new SysfsParseError(`sample_type has bits this reader does not decode (0x${extra.toString(16)})`);
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const samples: MemSample[] = [];
  let lost = 0;
  let other = 0;
  let at = 0;
  let n = 0;
  while (at < bytes.byteLength) {
    n++;
    if (at + 8 > bytes.byteLength)
      throw new SysfsParseError(`record ${n} at byte ${at}: a header needs 8 bytes, ${bytes.byteLength - at} left`);
    const type = v.getUint32(at, true);
    const size = v.getUint16(at + 6, true);
    if (size < 8 || at + size > bytes.byteLength)
      throw new SysfsParseError(`record ${n} at byte ${at}: size ${size} runs past the ${bytes.byteLength} bytes read`);
    if (type === PERF_RECORD_SAMPLE) samples.push(sampleBody(v, at + 8, at + size, sampleType, n));
    else if (type === PERF_RECORD_LOST)
      lost += Number(v.getBigUint64(at + 16, true)); // { u64 id; u64 lost; }
    else other++;
    at += size;
  }
  return { samples, lost, other };
}

function sampleBody(v: DataView, start: number, end: number, t: bigint, n: number): MemSample {
  let at = start;
  const u64 = () => {
    if (at + 8 > end) throw new SysfsParseError(`sample record ${n}: shorter than its sample_type says`);
    const x = v.getBigUint64(at, true);
    at += 8;
    return x;
  };
  const has = (bit: bigint) => (t & bit) !== 0n;
  let pid = 0;
  let tid = 0;
  let cpu = -1;
  let addr = 0n;
  let physAddr = 0n;
  let dataSrc = 0n;
  let weight = 0n;
  if (has(PERF_SAMPLE.IDENTIFIER)) u64();
  if (has(PERF_SAMPLE.IP)) u64();
  if (has(PERF_SAMPLE.TID)) {
    const x = u64();
    pid = Number(x & 0xffffffffn);
    tid = Number(x >> 32n);
  }
  if (has(PERF_SAMPLE.TIME)) u64();
  if (has(PERF_SAMPLE.ADDR)) addr = u64();
  if (has(PERF_SAMPLE.CPU)) cpu = Number(u64() & 0xffffffffn);
  if (has(PERF_SAMPLE.PERIOD)) u64();
  if (has(PERF_SAMPLE.WEIGHT)) weight = u64();
  if (has(PERF_SAMPLE.DATA_SRC)) dataSrc = u64();
  if (has(PERF_SAMPLE.PHYS_ADDR)) physAddr = u64();
  return { pid, tid, cpu, addr, physAddr, dataSrc, weight, side: dramSide(dataSrc) };
}

// union perf_mem_data_src (perf_event.h): mem_lvl at bits 5-18, mem_lvl_num 33-36, mem_remote 37.
const LVL_SHIFT = 5n;
const LVL_LOC_RAM = 0x80n;
const LVL_REM_RAM1 = 0x100n;
const LVL_REM_RAM2 = 0x200n;
const LVL_HIT = 0x02n;
const LVLNUM_SHIFT = 33n;
const LVLNUM_RAM = 0x0dn;
const REMOTE_SHIFT = 37n;

/**
 * Where a sampled access was served: 'local' or 'remote' DRAM, or null for anything else (a
 * cache hit, no data source). Older kernels and Intel fill mem_lvl (LOC_RAM, REM_RAM1/2);
 * newer ones (AMD IBS, Arm) mem_lvl_num RAM with the mem_remote bit.
 */
export function dramSide(dataSrc: bigint): 'local' | 'remote' | null {
  const lvl = (dataSrc >> LVL_SHIFT) & 0x3fffn;
  const lvlNum = (dataSrc >> LVLNUM_SHIFT) & 0xfn;
  const remote = ((dataSrc >> REMOTE_SHIFT) & 1n) === 1n;
  if ((lvl & (LVL_REM_RAM1 | LVL_REM_RAM2)) !== 0n && (lvl & LVL_HIT) !== 0n) return 'remote';
  if ((lvl & LVL_LOC_RAM) !== 0n && (lvl & LVL_HIT) !== 0n) return 'local';
  if (lvlNum === LVLNUM_RAM) return remote ? 'remote' : 'local';
  return null;
}

/** A data_src value (the inverse of dramSide, for recorded fixtures and tests). */
export function dataSrcOf(side: 'local' | 'remote' | 'l1'): bigint {
  const load = 0x2n; // mem_op PERF_MEM_OP_LOAD
  if (side === 'l1') return load | ((0x08n | LVL_HIT) << LVL_SHIFT) | (1n << LVLNUM_SHIFT);
  const lvl = side === 'local' ? LVL_LOC_RAM : LVL_REM_RAM1;
  return (
    load |
    ((lvl | LVL_HIT) << LVL_SHIFT) |
    (LVLNUM_RAM << LVLNUM_SHIFT) |
    ((side === 'remote' ? 1n : 0n) << REMOTE_SHIFT)
  );
}
