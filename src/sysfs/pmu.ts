// Which PMU can sample memory accesses with their data source, from /sys/bus/event_source/
// devices (Documentation/ABI/testing/sysfs-bus-event_source-devices*): each PMU a directory with
// its perf `type` number, its named `events/` ("event=0xcd,umask=0x1,ldlat=3") and the `format/`
// that says which bits of perf_event_attr each term fills ("config:0-7", "config1:0-15").
//   Intel PEBS   cpu/events/mem-loads (cpu_core/ on hybrid parts): load latency with data source
//   AMD IBS      ibs_op: execution samples with data source (6.1+ fills data_src for IBS)
//   Arm SPE      arm_spe_N: records through the AUX area, not PERF_RECORD_SAMPLE: not decoded here
// Virtual machines rarely expose any (a QEMU TCG guest never does): "absent" then says what the
// directory has instead.
import { SysfsParseError } from '../model/errors.js';
import { listDir, readText } from './read.js';
import type { SysRoot } from './root.js';

const DEVICES = 'sys/bus/event_source/devices';

export type MemPmu =
  | {
      readonly kind: 'sampling';
      readonly vendor: 'intel-pebs' | 'amd-ibs';
      /** The device directory ("cpu", "cpu_core", "ibs_op"). */
      readonly device: string;
      /** perf_event_attr.type */
      readonly type: number;
      readonly config: bigint;
      readonly config1: bigint;
      /** perf_event_attr.precise_ip the event needs (PEBS: 2; IBS: 0). */
      readonly preciseIp: number;
    }
  | { readonly kind: 'absent'; readonly why: string };

/** "event=0xcd,umask=0x1,ldlat=3" with each term's format ("config:0-7") -> config, config1. */
export function parsePmuEvent(
  spec: string,
  formats: Readonly<Record<string, string>>,
): { config: bigint; config1: bigint; config2: bigint } {
  const out = { config: 0n, config1: 0n, config2: 0n };
  for (const term of spec.trim().split(',').filter(Boolean)) {
    const [name, raw = '1'] = term.split('=');
    const fmt = formats[name!.trim()];
    if (fmt === undefined) throw new SysfsParseError(`event term '${name}' has no format file`, { text: spec });
    const m = /^(config[12]?):([\d,-]+)$/.exec(fmt.trim());
    if (!m) throw new SysfsParseError('not a "configN:BITS" format', { text: fmt });
    let value = BigInt(raw.trim());
    let bits = 0n;
    for (const range of m[2]!.split(',')) {
      const [lo, hi = lo] = range.split('-').map(Number);
      for (let b = lo!; b <= hi!; b++) {
        bits |= (value & 1n) << BigInt(b);
        value >>= 1n;
      }
    }
    out[m[1] as 'config' | 'config1' | 'config2'] |= bits;
  }
  return out;
}

function formatsOf(root: SysRoot, device: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of listDir(root, `${DEVICES}/${device}/format`) ?? []) {
    const t = readText(root, `${DEVICES}/${device}/format/${f}`);
    if (t !== null) out[f] = t.trim();
  }
  return out;
}

function typeOf(root: SysRoot, device: string): number | null {
  const n = Number(readText(root, `${DEVICES}/${device}/type`)?.trim() ?? NaN);
  return Number.isInteger(n) && n >= 0 ? n : null;
}

/** The PMU that samples memory accesses here, or why there is none. */
export function findMemPmu(root: SysRoot): MemPmu {
  const devices = listDir(root, DEVICES);
  if (devices === null) return { kind: 'absent', why: `no /${DEVICES} (a kernel without perf events)` };
  for (const device of ['cpu_core', 'cpu']) {
    const spec = readText(root, `${DEVICES}/${device}/events/mem-loads`);
    const type = typeOf(root, device);
    if (spec === null || type === null) continue;
    try {
      const { config, config1 } = parsePmuEvent(spec, formatsOf(root, device));
      return { kind: 'sampling', vendor: 'intel-pebs', device, type, config, config1, preciseIp: 2 };
    } catch (e) {
      if (!(e instanceof SysfsParseError)) throw e;
      return { kind: 'absent', why: `/${DEVICES}/${device}/events/mem-loads: ${e.problem}` };
    }
  }
  const ibs = typeOf(root, 'ibs_op');
  if (devices.includes('ibs_op') && ibs !== null)
    return { kind: 'sampling', vendor: 'amd-ibs', device: 'ibs_op', type: ibs, config: 0n, config1: 0n, preciseIp: 0 };
  const spe = devices.find((d) => /^arm_spe_\d+$/.test(d));
  if (spe !== undefined)
    return {
      kind: 'absent',
      why: `Arm SPE (${spe}) is present, but its records come through the AUX area, which numakit does not decode`,
    };
  const has = [...devices].sort().join(', ') || 'nothing';
  return {
    kind: 'absent',
    why: `no memory-access sampling PMU under /${DEVICES} (it has ${has}): no Intel PEBS mem-loads, AMD ibs_op or Arm SPE, as in most virtual machines`,
  };
}

/** kernel.perf_event_paranoid (2: user space only without CAP_PERFMON; Debian's 3: nothing); null when unknown. */
export function readPerfParanoid(root: SysRoot): number | null {
  const n = Number(readText(root, 'proc/sys/kernel/perf_event_paranoid')?.trim() ?? NaN);
  return Number.isInteger(n) ? n : null;
}
