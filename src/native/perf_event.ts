// PMU memory-access sampling through perf_event_open(2): one sampling event per thread (pid =
// TID, cpu = -1: what an unprivileged user may open on its own processes with
// perf_event_paranoid <= 2; an inherited per-task event cannot be mmapped), each with its mmap
// ring buffer; after the window the records between the buffer's tail and head are copied out
// and parsed (sysfs/perf_samples.ts). The event comes from sysfs/pmu.ts (Intel PEBS mem-loads,
// AMD ibs_op). Layouts: include/uapi/linux/perf_event.h (struct perf_event_attr, struct
// perf_event_mmap_page).
import type { MemPmu } from '../sysfs/pmu.js';
import { PERF_SAMPLE } from '../sysfs/perf_samples.js';
import { NativeError } from './errors.js';
import { libc, MAP_SHARED, PROT_READ, PROT_WRITE } from './libc.js';

/** PERF_ATTR_SIZE_VER7: every field up to sig_data; the kernel takes any size it knows. */
export const PERF_ATTR_SIZE = 128;

/**
 * What a memory-sampling session asks each sample for (the fields sysfs/perf_samples.ts
 * decodes). The physical address only when privileged: the kernel refuses PERF_SAMPLE_PHYS_ADDR
 * (EACCES) unless perf_event_paranoid <= 1 or CAP_PERFMON (kernel/events/core.c, perf_event_open).
 */
export function memSampleType(physAddr: boolean): bigint {
  return (
    PERF_SAMPLE.IP |
    PERF_SAMPLE.TID |
    PERF_SAMPLE.TIME |
    PERF_SAMPLE.ADDR |
    PERF_SAMPLE.CPU |
    PERF_SAMPLE.WEIGHT |
    PERF_SAMPLE.DATA_SRC |
    (physAddr ? PERF_SAMPLE.PHYS_ADDR : 0n)
  );
}

/** With the physical address: what a privileged session asks for. */
export const MEM_SAMPLE_TYPE = memSampleType(true);

export interface AttrOptions {
  readonly type: number;
  readonly config: bigint;
  readonly config1: bigint;
  readonly sampleType: bigint;
  /** One sample every this many events. */
  readonly samplePeriod: bigint;
  readonly preciseIp: number;
  /**
   * User space only (exclude_kernel, exclude_hv: what perf_event_paranoid 2 allows). AMD IBS
   * takes no exclude bits before its swfilt (6.14), so it samples everything, which needs root
   * or perf_event_paranoid <= 1. Default true.
   */
  readonly userOnly?: boolean;
}

// Bits of perf_event_attr's flags word (offset 40), in declaration order.
const FLAG_EXCLUDE_KERNEL = 1n << 5n;
const FLAG_EXCLUDE_HV = 1n << 6n;
const PRECISE_SHIFT = 15n;

/** struct perf_event_attr (PERF_ATTR_SIZE bytes), little-endian. Pure. */
export function encodePerfEventAttr(o: AttrOptions): Uint8Array {
  const b = new Uint8Array(PERF_ATTR_SIZE);
  const v = new DataView(b.buffer);
  v.setUint32(0, o.type, true);
  v.setUint32(4, PERF_ATTR_SIZE, true);
  v.setBigUint64(8, o.config, true);
  v.setBigUint64(16, o.samplePeriod, true);
  v.setBigUint64(24, o.sampleType, true);
  // enabled from the open (disabled = 0).
  const exclude = o.userOnly === false ? 0n : FLAG_EXCLUDE_KERNEL | FLAG_EXCLUDE_HV;
  const flags = exclude | (BigInt(o.preciseIp & 3) << PRECISE_SHIFT);
  v.setBigUint64(40, flags, true);
  v.setUint32(48, 1, true); // wakeup_events
  v.setBigUint64(56, o.config1, true);
  return b;
}

const PERF_FLAG_FD_CLOEXEC = 8;
// struct perf_event_mmap_page: data_head, data_tail, data_offset, data_size (4.1+).
const DATA_HEAD = 1024;
const DATA_OFFSET = 1040;
const DATA_SIZE = 1048;

interface Ring {
  readonly tid: number;
  readonly fd: number;
  readonly ptr: unknown;
  readonly bytes: number;
}

/** The records in a ring (from data_tail 0: nothing was consumed), unwrapped. Pure on the mapped bytes. */
export function ringRecords(page: DataView): Uint8Array {
  const head = Number(page.getBigUint64(DATA_HEAD, true));
  const offset = Number(page.getBigUint64(DATA_OFFSET, true));
  const size = Number(page.getBigUint64(DATA_SIZE, true));
  const data = new Uint8Array(page.buffer, page.byteOffset + offset, size);
  // Once it wrapped, the oldest records were overwritten only if the kernel did not stop: it
  // stops (and counts PERF_RECORD_LOST) when head would pass tail, so [0, head) is whole.
  const n = Math.min(head, size);
  const out = new Uint8Array(n);
  const start = head - n;
  for (let i = 0; i < n; i++) out[i] = data[(start + i) % size]!;
  return out;
}

export class MemSampling {
  private constructor(private readonly rings: Ring[]) {}

  /**
   * Opens one event per thread. A thread that exited meanwhile (ESRCH) is skipped; any other
   * failure closes what was opened and throws a NativeError naming the thread and the cause.
   */
  static open(
    pmu: Pick<Extract<MemPmu, { kind: 'sampling' }>, 'device' | 'type' | 'config' | 'config1' | 'preciseIp'>,
    tids: readonly number[],
    o: { pages?: number; period?: bigint; sampleType?: bigint; userOnly?: boolean } = {},
  ): MemSampling {
    const c = libc();
    const page = c.getpagesize() as number;
    const bytes = page * (1 + (o.pages ?? 8));
    const attr = encodePerfEventAttr({
      type: pmu.type,
      config: pmu.config,
      config1: pmu.config1,
      sampleType: o.sampleType ?? MEM_SAMPLE_TYPE,
      samplePeriod: o.period ?? 4000n,
      preciseIp: pmu.preciseIp,
      userOnly: o.userOnly ?? true,
    });
    const rings: Ring[] = [];
    const s = new MemSampling(rings);
    try {
      for (const tid of tids) {
        const fd = c.perf_event_open(attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
        if (fd < 0) {
          const errno = c.koffi.errno();
          if (errno === 3) continue; // ESRCH: the thread is gone
          throw new NativeError('perf_event_open', errno, {
            target: `${pmu.device} on tid ${tid}`,
            hint: hintFor(errno),
          });
        }
        const ptr = c.mmapPointer(null, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (ptr === null || c.koffi.address(ptr) === 0xffffffffffffffffn) {
          const errno = c.koffi.errno();
          c.close(fd);
          throw new NativeError('mmap', errno, { target: `perf ring of tid ${tid}, ${bytes} bytes` });
        }
        rings.push({ tid, fd, ptr, bytes });
      }
    } catch (e) {
      s.close();
      throw e;
    }
    return s;
  }

  /** Threads being sampled. */
  get threads(): number {
    return this.rings.length;
  }

  /** The records each ring holds now. */
  read(): Uint8Array[] {
    const c = libc();
    return this.rings.map((r) => ringRecords(new DataView(c.koffi.view(r.ptr, r.bytes))));
  }

  close(): void {
    const c = libc();
    for (const r of this.rings.splice(0)) {
      c.munmapPointer(r.ptr, r.bytes);
      c.close(r.fd);
    }
  }
}

function hintFor(errno: number): string | undefined {
  if (errno === 13 || errno === 1)
    return 'kernel.perf_event_paranoid forbids it to this user (Debian: 3 allows nothing without CAP_PERFMON; 2 allows user-space sampling of your own processes)';
  if (errno === 2 || errno === 95 || errno === 22)
    return 'the kernel does not take this event here (a PMU without precise sampling, or a virtual machine that hides it)';
  return undefined;
}
