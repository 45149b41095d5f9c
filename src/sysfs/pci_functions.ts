// The PCI functions of sys/bus/pci/devices/*, with what hwloc's Linux discovery reads of each:
// class, vendor, device and subsystem ids (their files), the revision and the bridge buses from
// the config space (its first 256 bytes; 0xff where it cannot be read: an unprivileged read
// gets 64 bytes), the PCIe link speed from the config space's PCIe capability, else from
// current_link_speed x current_link_width (Linux 4.13+), and local_cpus.
import type { PciFunction } from '../model/hwloc_io.js';
import { parseCpuMask } from '../model/cpuset.js';
import { listDir, readInto, readText } from './read.js';
import type { SysRoot } from './root.js';

const DIR = 'sys/bus/pci/devices';
const BUS_ID = /^([0-9a-f]{4,8}):([0-9a-f]{2}):([0-9a-f]{2})\.([0-7])$/;

const f32 = Math.fround;

/** GB/s of a PCIe link of `lanes` lanes at `generation`, in single precision as hwloc has it. */
export function pcieLinkSpeed(generation: number, lanes: number): number {
  let lane: number;
  if (generation <= 2) lane = f32(f32(f32(2.5 * generation)) * f32(0.8));
  else if (generation <= 5) lane = f32(f32(f32(8 * 2 ** (generation - 3)) * 128) / 130);
  else lane = f32(f32(f32(8 * 2 ** (generation - 3)) * 242) / 256);
  return f32(f32(lane * lanes) / 8);
}

/** current_link_speed ("8.0 GT/s PCIe") as hwloc reads it: GT/s less the line encoding. */
export function parseLinkSpeedText(text: string): number {
  const table: [string, number][] = [
    ['2.5 ', 2.5 * 0.8],
    ['5.0 ', 5 * 0.8],
    ['8.0 ', (8 * 128) / 130],
    ['16.0 ', (16 * 128) / 130],
    ['32.0 ', (32 * 128) / 130],
    ['64.0 ', (64 * 242) / 256],
  ];
  return f32(table.find(([p]) => text.startsWith(p))?.[1] ?? 0);
}

export interface PciConfig {
  readonly revision: number;
  /** Header type 1 (PCI-to-PCI bridge). */
  readonly bridgeHeader: boolean;
  readonly secondary: number;
  readonly subordinate: number;
  /** From the PCIe capability's link status, or null when the capability cannot be read. */
  readonly linkSpeed: number | null;
}

/** The config space bytes hwloc looks at (`bytes` padded with 0xff to 256). */
export function parsePciConfig(bytes: Uint8Array): PciConfig {
  const c = new Uint8Array(256).fill(0xff);
  c.set(bytes.subarray(0, 256));
  let cap = 0;
  if (c[0x06]! & 0x10) {
    const seen = new Set<number>();
    for (let p = c[0x34]! & ~3; p !== 0 && !seen.has(p); p = c[p + 1]! & ~3) {
      seen.add(p);
      if (c[p] === 0x10) {
        cap = p;
        break;
      }
      if (c[p] === 0xff) break;
    }
  }
  let linkSpeed: number | null = null;
  if (cap > 0 && cap + 20 <= 256) {
    const sta = c[cap + 0x12]! | (c[cap + 0x13]! << 8);
    linkSpeed = pcieLinkSpeed(sta & 0xf, (sta & 0x3f0) >> 4);
  }
  return {
    revision: c[0x08]!,
    bridgeHeader: (c[0x0e]! & 0x7f) === 1,
    secondary: c[0x19]!,
    subordinate: c[0x1a]!,
    linkSpeed,
  };
}

const hexOf = (root: SysRoot, path: string) => {
  const t = readText(root, path);
  const v = t === null ? Number.NaN : Number.parseInt(t.trim().replace(/^0x/, ''), 16);
  return Number.isNaN(v) ? null : v;
};

/** sys/bus/pci/slots/NAME/address ("0000:3b:00"): slot name by "domain:bus:dev" (numbers). */
function readSlots(root: SysRoot): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of listDir(root, 'sys/bus/pci/slots') ?? []) {
    if (name.startsWith('.')) continue;
    const m = /^([0-9a-f]+):([0-9a-f]+):([0-9a-f]+)/i.exec(readText(root, `sys/bus/pci/slots/${name}/address`) ?? '');
    if (m)
      out.set(
        m
          .slice(1, 4)
          .map((x) => Number.parseInt(x, 16))
          .join(':'),
        name,
      );
  }
  return out;
}

function readOne(root: SysRoot, name: string, m: RegExpExecArray, slots: Map<string, string>): PciFunction | null {
  const [domain, bus, dev, func] = [m[1]!, m[2]!, m[3]!, m[4]!].map((x) => Number.parseInt(x, 16)) as [
    number,
    number,
    number,
    number,
  ];
  const d = `${DIR}/${name}`;
  const buf = new Uint8Array(256);
  const n = readInto(root, `${d}/config`, buf) ?? 0;
  const config = parsePciConfig(buf.subarray(0, n));
  const classId = (hexOf(root, `${d}/class`) ?? 0) >>> 8;
  let bridge: PciFunction['bridge'] = null;
  if (classId === 0x0604 && config.bridgeHeader) {
    // hwloc drops a bridge whose buses make no sense (00 for both, secondary not below it).
    if (config.secondary <= bus || config.subordinate <= bus || config.secondary > config.subordinate) return null;
    bridge = { secondary: config.secondary, subordinate: config.subordinate };
  }
  let linkSpeed = config.linkSpeed;
  if (linkSpeed === null) {
    const speed = parseLinkSpeedText(readText(root, `${d}/current_link_speed`) ?? '');
    const width = Number.parseInt(readText(root, `${d}/current_link_width`) ?? '0', 10) || 0;
    linkSpeed = f32(f32(speed * width) / 8);
  }
  const mask = readText(root, `${d}/local_cpus`);
  let localCpus: number[] | null = null;
  try {
    localCpus = mask === null ? null : parseCpuMask(mask);
  } catch {
    localCpus = null; // an unreadable mask: hwloc puts the bus under the machine, as when absent
  }
  return {
    domain,
    bus,
    dev,
    func,
    classId,
    vendor: hexOf(root, `${d}/vendor`) ?? 0,
    device: hexOf(root, `${d}/device`) ?? 0,
    subVendor: hexOf(root, `${d}/subsystem_vendor`) ?? 0,
    subDevice: hexOf(root, `${d}/subsystem_device`) ?? 0,
    revision: config.revision,
    linkSpeed,
    bridge,
    localCpus: localCpus !== null && localCpus.length > 0 ? localCpus : null,
    slot: slots.get(`${domain}:${bus}:${dev}`) ?? null,
  };
}

/** Every PCI function with a bus id hwloc reads (16-bit domains), in bus id order. */
export function readPciFunctions(root: SysRoot): PciFunction[] {
  const out: PciFunction[] = [];
  const slots = readSlots(root);
  for (const name of listDir(root, DIR) ?? []) {
    const m = BUS_ID.exec(name);
    if (m === null || Number.parseInt(m[1]!, 16) > 0xffff) continue;
    const f = readOne(root, name, m, slots);
    if (f !== null) out.push(f);
  }
  return out;
}
