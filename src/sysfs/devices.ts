// Devices and the node each sits on: /sys/class/{net,nvme,block,infiniband} and
// /sys/bus/pci/devices. device/numa_node is -1 when firmware does not say (no _PXM):
// that is "unknown", never node 0. Virtio devices keep numa_node on their PCI parent.
import { posix } from 'node:path';
import { MAX_NODES } from '../model/limits.js';
import type { Device, DeviceKind } from '../model/topology.js';
import { integerIn } from './parse_util.js';
import { listDir, readLink, readText, resolvePath } from './read.js';
import { readParsed } from './read_parsed.js';
import type { SysRoot } from './root.js';

const PCI_ADDR = /^[0-9a-f]{4,}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/;

/** numa_node: -1 (unknown) or a node id; anything else (2^64, 5000) is a warning and unknown. */
const parseNumaNode = integerIn(-1, MAX_NODES - 1);
/** An IRQ number (the kernel's irq space is an unsigned int). */
const parseIrq = integerIn(0, 2 ** 32 - 1);

/** A short text attribute (model, transport, class): printable ASCII, at most 256 characters. */
function readWord(root: SysRoot, path: string): string | null {
  const t = readText(root, path);
  return t === null
    ? null
    : t
        .replace(/[^\x20-\x7e]/g, ' ')
        .trim()
        .slice(0, 256);
}

function readNumaNode(root: SysRoot, path: string): number | null {
  return readParsed(root, path, parseNumaNode);
}

/**
 * The host bridge and PCI bridges above a PCI function, from its sysfs path
 * (sys/devices/pci0000:00/0000:00:01.1/0000:41:00.0 -> pci0000:00, 0000:00:01.1).
 */
export function pciPathOf(pciDir: string): string[] {
  const parts = pciDir.split('/');
  const host = parts.findIndex((p) => /^pci[0-9a-f]{4,}:[0-9a-f]{2}$/.test(p));
  if (host < 0) return [];
  return [parts[host]!, ...parts.slice(host + 1, -1).filter((p) => PCI_ADDR.test(p))];
}

/** The nearest directory at or above `dir` that is a PCI function (name is a PCI address). */
function pciAncestor(dir: string): string | null {
  for (let d = dir; d !== '.' && d !== '' && d !== '/'; d = posix.dirname(d)) {
    if (PCI_ADDR.test(posix.basename(d))) return d;
  }
  return null;
}

interface Backing {
  pciDir: string | null;
  node: number | null;
  driver: string | null;
  irqs: number[];
}

/** What a class device's `device` link leads to: PCI function, node, driver, IRQs. */
function readBacking(root: SysRoot, deviceDir: string | null): Backing {
  if (deviceDir === null) return { pciDir: null, node: null, driver: null, irqs: [] };
  const pciDir = pciAncestor(deviceDir);
  const nodeDir = readText(root, `${deviceDir}/numa_node`) !== null ? deviceDir : pciDir;
  const raw = nodeDir === null ? null : readNumaNode(root, `${nodeDir}/numa_node`);
  const driverLink = readLink(root, `${deviceDir}/driver`) ?? (pciDir ? readLink(root, `${pciDir}/driver`) : null);
  const irqDir = pciDir ?? deviceDir;
  const irqs = (listDir(root, `${irqDir}/msi_irqs`) ?? []).filter((n) => /^\d{1,10}$/.test(n)).map(Number);
  if (irqs.length === 0) {
    const legacy = readParsed(root, `${irqDir}/irq`, parseIrq);
    if (legacy !== null && legacy > 0) irqs.push(legacy);
  }
  return {
    pciDir,
    node: raw === null || raw < 0 ? null : raw,
    driver: driverLink === null ? null : posix.basename(driverLink),
    irqs: irqs.sort((a, b) => a - b),
  };
}

function deviceLink(root: SysRoot, classDir: string): string | null {
  return readLink(root, `${classDir}/device`) === null ? null : resolvePath(root, `${classDir}/device`);
}

function make(kind: DeviceKind, name: string, b: Backing, extra: Partial<Device> = {}): Device {
  return {
    kind,
    name,
    node: b.node,
    pciAddress: b.pciDir === null ? null : posix.basename(b.pciDir),
    pciPath: b.pciDir === null ? [] : pciPathOf(b.pciDir),
    transport: null,
    driver: b.driver,
    details: {},
    irqs: b.irqs,
    ...extra,
  };
}

export function readNetDevices(root: SysRoot): Device[] {
  const out: Device[] = [];
  for (const name of listDir(root, 'sys/class/net') ?? []) {
    const dir = resolvePath(root, `sys/class/net/${name}`);
    const dev = deviceLink(root, dir);
    if (dev === null) continue; // lo, bridges, veth: no hardware, no node
    const queues = listDir(root, `${dir}/queues`) ?? [];
    const details: Record<string, string | number> = {};
    const speed = readText(root, `${dir}/speed`); // EINVAL (absent) while the link is down
    if (speed !== null && /^\d{1,9}$/.test(speed.trim()) && Number(speed) > 0) details.speedMbps = Number(speed);
    out.push(
      make('net', name, readBacking(root, dev), {
        details,
        queues: {
          rx: queues.filter((q) => q.startsWith('rx-')).length,
          tx: queues.filter((q) => q.startsWith('tx-')).length,
        },
      }),
    );
  }
  return out;
}

export function readNvmeDevices(root: SysRoot): Device[] {
  const out: Device[] = [];
  for (const name of listDir(root, 'sys/class/nvme') ?? []) {
    const dir = resolvePath(root, `sys/class/nvme/${name}`);
    const transport = readWord(root, `${dir}/transport`);
    const b = readBacking(root, deviceLink(root, dir));
    // Fabrics controllers (tcp, rdma, fc) have no PCI device but may carry numa_node themselves.
    const own = b.node === null ? readNumaNode(root, `${dir}/numa_node`) : null;
    const namespaces = (listDir(root, dir) ?? []).filter((n) => /^nvme\d+(c\d+)?n\d+$/.test(n));
    const model = readWord(root, `${dir}/model`);
    const details: Record<string, string | number> = {};
    if (model) details.model = model;
    if (namespaces.length > 0) details.namespaces = namespaces.join(',');
    out.push(
      make('nvme', name, { ...b, node: b.node ?? (own !== null && own >= 0 ? own : null) }, { transport, details }),
    );
  }
  return out;
}

const SKIP_BLOCK = /^(loop|ram|zram|dm-|md|nbd|sr|fd|nvme)/;

export function readBlockDevices(root: SysRoot): Device[] {
  const out: Device[] = [];
  for (const name of listDir(root, 'sys/class/block') ?? []) {
    if (SKIP_BLOCK.test(name)) continue;
    const dir = resolvePath(root, `sys/class/block/${name}`);
    if (readText(root, `${dir}/partition`) !== null) continue;
    const dev = deviceLink(root, dir);
    if (dev === null) continue;
    out.push(make('block', name, readBacking(root, dev)));
  }
  return out;
}

export function readInfinibandDevices(root: SysRoot): Device[] {
  return (listDir(root, 'sys/class/infiniband') ?? []).map((name) => {
    const dir = resolvePath(root, `sys/class/infiniband/${name}`);
    return make('ib', name, readBacking(root, deviceLink(root, dir)));
  });
}

/** PCI display controllers (class 0x03) and processing accelerators (0x12). */
export function readGpuDevices(root: SysRoot): Device[] {
  const out: Device[] = [];
  for (const addr of listDir(root, 'sys/bus/pci/devices') ?? []) {
    const dir = resolvePath(root, `sys/bus/pci/devices/${addr}`);
    const cls = readWord(root, `${dir}/class`) ?? '';
    if (!/^0x(03|12)/.test(cls)) continue;
    const b = readBacking(root, dir);
    out.push(make('gpu', addr, b, { details: { pciClass: cls } }));
  }
  return out;
}

export function readDevices(root: SysRoot): Device[] {
  return [
    ...readNetDevices(root),
    ...readNvmeDevices(root),
    ...readBlockDevices(root),
    ...readGpuDevices(root),
    ...readInfinibandDevices(root),
  ];
}
