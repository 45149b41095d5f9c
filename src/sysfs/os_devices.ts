// The OS devices hwloc's Linux discovery finds with lstopo's default filter: block devices
// (sys/class/block, partitions left out), network interfaces (sys/class/net) and OpenFabrics
// devices (sys/class/infiniband, scif* left out), each with the info pairs hwloc gives it. A
// device whose sysfs path is virtual (lo, dm-*, loop*) or under USB is not one (hwloc's
// find_osdev_parent); its PCI function is the last bus id on that path. DRM cards and DMA
// channels are found only when every OS device is kept (lstopo --filter osdev:all): not here.
import type { OsDevice, OsDeviceKind, PciBusId } from '../model/hwloc_io.js';
import { listDir, readLink, readText } from './read.js';
import type { SysRoot } from './root.js';

const SEGMENT = /^(?:([0-9a-f]{1,8}):)?([0-9a-f]{1,2}):([0-9a-f]{1,2})\.([0-7])$/;

/** The last PCI bus id of a device path (…/pci0000:00/0000:00:01.0/0000:3b:00.0/net/eth0). */
export function pciOfDevicePath(path: string): PciBusId | null {
  const at = path.indexOf('/pci');
  if (at < 0) return null;
  const parts = path
    .slice(at + 1)
    .split('/')
    .slice(1);
  let last: PciBusId | null = null;
  for (const p of parts) {
    const m = SEGMENT.exec(p);
    if (m === null) break;
    const [domain, bus, dev, func] = [m[1] ?? '0', m[2]!, m[3]!, m[4]!].map((x) => Number.parseInt(x, 16)) as [
      number,
      number,
      number,
      number,
    ];
    last = { domain, bus, dev, func };
  }
  return last;
}

const line = (root: SysRoot, path: string) => {
  const t = readText(root, path);
  return t === null || t === '' ? null : (t.split('\n')[0] ?? '');
};

/** The leading characters of `s` that are in `set` (C's strspn), as hwloc trims ids. */
const span = (s: string, set: RegExp) => {
  let i = 0;
  while (i < s.length && set.test(s[i]!)) i++;
  return s.slice(0, i);
};

function numaNodeOf(root: SysRoot, dir: string): number | null {
  const t = readText(root, `${dir}/device/numa_node`);
  const v = t === null ? Number.NaN : Number.parseInt(t, 10);
  return Number.isNaN(v) || v < 0 ? null : v;
}

/** udev's database entry of a block device (run/udev/data/bMAJ:MIN): vendor, model, serial, type. */
function udevBlock(root: SysRoot, dev: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const l of (readText(root, `run/udev/data/b${dev}`) ?? '').split('\n')) {
    const m = /^E:(ID_VENDOR|ID_MODEL|ID_REVISION|ID_SERIAL_SHORT|ID_TYPE)=(.*)$/.exec(l);
    if (m) out[m[1]!] = m[2]!.slice(0, 63);
  }
  return out;
}

function blockInfo(root: SysRoot, dir: string, name: string): { subtype: string | null; infos: [string, string][] } {
  const infos: [string, string][] = [];
  const size = line(root, `${dir}/size`);
  if (size !== null) infos.push(['Size', String(BigInt(/^\d+/.exec(size)?.[0] ?? '0') / 2n)]);
  const sector = Number.parseInt(line(root, `${dir}/queue/hw_sector_size`) ?? '0', 10);
  if (sector > 0) infos.push(['SectorSize', String(sector)]);
  const nvm = (line(root, `${dir}/device/devtype`) ?? '').startsWith('nd_');
  const dev = line(root, `${dir}/dev`);
  let udev: Record<string, string> = {};
  if (dev !== null && /^\d+:\d+/.test(dev)) {
    infos.push(['LinuxDeviceID', dev]);
    udev = udevBlock(root, dev);
  }
  const model = udev['ID_MODEL'] ?? '';
  let vendor = (udev['ID_VENDOR'] ?? '').toLowerCase() === 'ata' ? '' : (udev['ID_VENDOR'] ?? '');
  if (vendor === '') {
    const known: [string, string][] = [
      ['wd', 'Western Digital'],
      ['st', 'Seagate'],
      ['samsung', 'Samsung'],
      ['sandisk', 'SanDisk'],
      ['toshiba', 'Toshiba'],
    ];
    vendor = known.find(([p]) => model.toLowerCase().startsWith(p))?.[1] ?? '';
  }
  if (vendor !== '') infos.push(['Vendor', vendor]);
  if (model !== '') infos.push(['Model', model]);
  if (udev['ID_REVISION']) infos.push(['Revision', udev['ID_REVISION']]);
  if (udev['ID_SERIAL_SHORT']) infos.push(['SerialNumber', udev['ID_SERIAL_SHORT']]);
  const type = udev['ID_TYPE'] ?? '';
  const subtype = nvm
    ? 'NVM'
    : type === 'disk' || name.startsWith('nvme')
      ? 'Disk'
      : type === 'tape'
        ? 'Tape'
        : ['cd', 'floppy', 'optical'].includes(type)
          ? 'Removable Media Device'
          : null;
  return { subtype, infos };
}

function netInfo(root: SysRoot, dir: string): [string, string][] {
  const infos: [string, string][] = [];
  const address = line(root, `${dir}/address`);
  if (address !== null) infos.push(['Address', address]);
  if (listDir(root, `${dir}/device/infiniband`) !== null) {
    const id = line(root, `${dir}/dev_port`) ?? line(root, `${dir}/dev_id`);
    const port = id === null ? Number.NaN : Number(/^\s*(0x[0-9a-f]+|\d+)/i.exec(id)?.[1]);
    if (!Number.isNaN(port)) infos.push(['Port', String(port + 1)]);
  }
  return infos;
}

function infinibandInfo(root: SysRoot, dir: string): [string, string][] {
  const guid = /[0-9a-fx:]/;
  const infos: [string, string][] = [];
  for (const [file, name] of [
    ['node_guid', 'NodeGUID'],
    ['sys_image_guid', 'SysImageGUID'],
  ] as const) {
    const v = readText(root, `${dir}/${file}`);
    if (v) infos.push([name, span(v.slice(0, 19), guid)]);
  }
  for (let i = 1; ; i++) {
    const state = readText(root, `${dir}/ports/${i}/state`);
    if (!state) break;
    infos.push([`Port${i}State`, state[0]!]);
    const lid = readText(root, `${dir}/ports/${i}/lid`);
    if (lid) infos.push([`Port${i}LID`, span(lid.slice(0, 10), /[0-9a-fx]/)]);
    const lmc = readText(root, `${dir}/ports/${i}/lid_mask_count`);
    if (lmc) infos.push([`Port${i}LMC`, span(lmc.slice(0, 10), /[0-9]/)]);
    for (let j = 0; ; j++) {
      const gid = readText(root, `${dir}/ports/${i}/gids/${j}`);
      if (!gid) break;
      const g = span(gid.slice(0, 39), guid);
      if (g.slice(20, 39) !== '0000:0000:0000:0000') infos.push([`Port${i}GID${j}`, g]);
    }
  }
  return infos;
}

const CLASSES: readonly [string, OsDeviceKind][] = [
  ['block', 'block'],
  ['net', 'network'],
  ['infiniband', 'openfabrics'],
];

function readOne(root: SysRoot, cls: string, kind: OsDeviceKind, name: string): OsDevice | null {
  const dir = `sys/class/${cls}/${name}`;
  if (cls === 'block' && readText(root, `${dir}/partition`) !== null) return null;
  if (cls === 'infiniband' && name.startsWith('scif')) return null;
  // Old kernels have a directory here, whose `device` link says where the device is.
  const path = readLink(root, dir) ?? readLink(root, `${dir}/device`);
  if (path === null || path.includes('/virtual/') || path.includes('/usb')) return null;
  const info =
    kind === 'block'
      ? blockInfo(root, dir, name)
      : { subtype: null, infos: kind === 'network' ? netInfo(root, dir) : infinibandInfo(root, dir) };
  return { name, kind, ...info, pci: pciOfDevicePath(path), numaNode: numaNodeOf(root, dir) };
}

/** The OS devices, class by class in hwloc's order (block, net, infiniband), by name in each. */
export function readOsDevices(root: SysRoot): OsDevice[] {
  const out: OsDevice[] = [];
  for (const [cls, kind] of CLASSES)
    for (const name of listDir(root, `sys/class/${cls}`) ?? []) {
      const d = readOne(root, cls, kind, name);
      if (d !== null) out.push(d);
    }
  return out;
}
