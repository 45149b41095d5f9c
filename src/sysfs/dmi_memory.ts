// sys/firmware/dmi/entries/17-N/raw: the SMBIOS memory device entries (type 17), which hwloc
// shows as Misc objects of subtype MemoryModule with the slot's strings. Entries are read from
// 17-0 up to the first missing one; an entry shorter than the fields hwloc needs ends the walk.
// Root-only on most systems (absent for an unprivileged snapshot).
import { listDir, readInto } from './read.js';
import type { SysRoot } from './root.js';

export interface MemoryModule {
  readonly index: number;
  readonly infos: [string, string][];
}

/** The header bytes that number each string (SMBIOS 2.3+ type 17), as hwloc names them. */
const FIELDS: readonly [number, string, boolean][] = [
  [0x17, 'Vendor', true],
  [0x18, 'SerialNumber', true],
  [0x19, 'AssetTag', true],
  [0x1a, 'PartNumber', true],
  [0x10, 'DeviceLocation', false],
  [0x11, 'BankLocation', false],
];

/** One entry's infos, or null when it names nothing of the device (an empty slot's location only). */
export function parseMemoryDevice(raw: Uint8Array): [string, string][] | null {
  const length = raw[1] ?? 0;
  if (raw.length < 0x1b || length < 0x1b) return null;
  const strings = Buffer.from(raw.subarray(length)).toString('latin1').split('\0');
  const infos: [string, string][] = [];
  let found = false;
  for (let i = 1; i <= strings.length; i++) {
    const s = strings[i - 1]!;
    if (s === '') break;
    const field = FIELDS.find(([off]) => raw[off] === i);
    if (field === undefined) break;
    if (s.trim() === '') continue; // empty slots are spaces on some firmware
    infos.push([field[1], s]);
    if (field[2]) found = true;
  }
  return found ? infos : null;
}

export function readMemoryModules(root: SysRoot): MemoryModule[] {
  const out: MemoryModule[] = [];
  if (listDir(root, 'sys/firmware/dmi/entries') === null) return out;
  const buf = new Uint8Array(4096);
  for (let i = 0; ; i++) {
    const n = readInto(root, `sys/firmware/dmi/entries/17-${i}/raw`, buf);
    if (n === null || n < 0x1b || (buf[1] ?? 0) < 0x1b) break;
    const infos = parseMemoryDevice(buf.slice(0, n));
    if (infos !== null) out.push({ index: i, infos });
  }
  return out;
}
