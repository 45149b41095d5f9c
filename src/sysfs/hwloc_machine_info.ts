// The Machine object's info pairs hwloc's Linux discovery sets: the DMI ids
// (sys/devices/virtual/dmi/id, else sys/class/dmi/id), the OS (uname on the running system;
// in a captured tree proc/hwloc-nofile-info, which hwloc-gather-topology writes) and the cgroup
// the process is in (LinuxCgroup: proc/self/cpuset, else the cpuset or cgroup2 line of
// proc/self/cgroup), which hwloc reports only where proc/mounts shows a cpuset or cgroup2 mount.
import { arch, hostname, release, version } from 'node:os';
import { listDir, readText } from './read.js';
import type { SysRoot } from './root.js';

const DMI: readonly [string, string][] = [
  ['product_name', 'DMIProductName'],
  ['product_version', 'DMIProductVersion'],
  ['product_serial', 'DMIProductSerial'],
  ['product_uuid', 'DMIProductUUID'],
  ['board_vendor', 'DMIBoardVendor'],
  ['board_name', 'DMIBoardName'],
  ['board_version', 'DMIBoardVersion'],
  ['board_serial', 'DMIBoardSerial'],
  ['board_asset_tag', 'DMIBoardAssetTag'],
  ['chassis_vendor', 'DMIChassisVendor'],
  ['chassis_type', 'DMIChassisType'],
  ['chassis_version', 'DMIChassisVersion'],
  ['chassis_serial', 'DMIChassisSerial'],
  ['chassis_asset_tag', 'DMIChassisAssetTag'],
  ['bios_vendor', 'DMIBIOSVendor'],
  ['bios_version', 'DMIBIOSVersion'],
  ['bios_date', 'DMIBIOSDate'],
  ['sys_vendor', 'DMISysVendor'],
];

/** The first line of a file as hwloc keeps it: at most 63 bytes, an empty file is no value. */
const firstLine = (text: string | null) => (text === null || text === '' ? null : text.slice(0, 63).split('\n')[0]!);

export function readDmiInfo(root: SysRoot): [string, string][] {
  const dir = listDir(root, 'sys/devices/virtual/dmi/id') !== null ? 'sys/devices/virtual/dmi/id' : 'sys/class/dmi/id';
  const out: [string, string][] = [];
  for (const [file, name] of DMI) {
    const v = firstLine(readText(root, `${dir}/${file}`));
    if (v !== null) out.push([name, v]);
  }
  return out;
}

const UNAME = ['OSName', 'OSRelease', 'OSVersion', 'HostName', 'Architecture'];

/** proc/hwloc-nofile-info: "Name: value" lines. */
export function parseNofileInfo(text: string): [string, string][] {
  const out: [string, string][] = [];
  for (const l of text.split('\n')) {
    const m = /^(\w+): (.*)$/.exec(l);
    if (m && UNAME.includes(m[1]!) && m[2] !== '') out.push([m[1]!, m[2]!]);
  }
  return out;
}

export function readOsInfo(root: SysRoot): [string, string][] {
  if (root.isReal)
    return [
      ['OSName', 'Linux'],
      ['OSRelease', release()],
      ['OSVersion', version()],
      ['HostName', hostname()],
      ['Architecture', arch() === 'x64' ? 'x86_64' : arch() === 'arm64' ? 'aarch64' : arch()],
    ];
  const t = readText(root, 'proc/hwloc-nofile-info');
  return t === null ? [] : parseNofileInfo(t);
}

/**
 * Whether proc/mounts shows a cgroup hierarchy hwloc reads cpusets from: the cpuset filesystem,
 * a v1 cgroup with the cpuset controller, or cgroup2 whose root lists cpuset in
 * cgroup.controllers (`controllersOf(mountpoint)`).
 */
export function hasCpusetMount(mounts: string, controllersOf: (dir: string) => string | null): boolean {
  return mounts.split('\n').some((l) => {
    const [, dir, type, opts] = l.split(/\s+/);
    if (type === 'cgroup2') return /(^|\s)cpuset(\s|$)/.test(controllersOf(dir ?? '') ?? '');
    return type === 'cpuset' || (type === 'cgroup' && (opts ?? '').split(',').includes('cpuset'));
  });
}

/** The cgroup name hwloc reports, from proc/self/cpuset or proc/self/cgroup. */
export function parseCgroupName(cpuset: string | null, cgroup: string | null): string | null {
  if (cpuset !== null && cpuset !== '') return cpuset.split('\n')[0]!;
  for (const l of (cgroup ?? '').split('\n')) {
    const colon = l.indexOf(':');
    if (colon < 0) continue;
    const rest = l.slice(colon);
    if (rest.startsWith(':cpuset:')) return rest.slice(8);
    if (rest.startsWith('::')) return rest.slice(2);
  }
  return null;
}

export function readCgroupInfo(root: SysRoot): [string, string][] {
  const controllers = (dir: string) => readText(root, `${dir.replace(/^\/+/, '')}/cgroup.controllers`);
  if (!hasCpusetMount(readText(root, 'proc/mounts') ?? '', controllers)) return [];
  const name = parseCgroupName(readText(root, 'proc/self/cpuset'), readText(root, 'proc/self/cgroup'));
  return name === null ? [] : [['LinuxCgroup', name]];
}

/** The CPU architecture hwloc parses /proc/cpuinfo for: uname's machine, or the tree's nofile-info. */
export function readArchitecture(root: SysRoot): string | null {
  return readOsInfo(root).find(([k]) => k === 'Architecture')?.[1] ?? null;
}

type Keys = Record<string, string>;
const X86: Keys = {
  vendor_id: 'CPUVendor',
  'model name': 'CPUModel',
  model: 'CPUModelNumber',
  'cpu family': 'CPUFamilyNumber',
  stepping: 'CPUStepping',
};
const ARM: Keys = {
  Processor: 'CPUModel',
  'model name': 'CPUModel',
  'CPU implementer': 'CPUImplementer',
  'CPU architecture': 'CPUArchitecture',
  'CPU variant': 'CPUVariant',
  'CPU part': 'CPUPart',
  'CPU revision': 'CPURevision',
};
/** Other architectures, or none known: only the model, by any of its names. */
const GENERIC: Keys = {
  'model name': 'CPUModel',
  Processor: 'CPUModel',
  'chip type': 'CPUModel',
  'cpu model': 'CPUModel',
  cpu: 'CPUModel',
};

function keysFor(arch: string | null): Keys {
  if (arch !== null && /^(x86_64|i[3-6]86|k1om)$/.test(arch)) return X86;
  if (arch !== null && /^(arm|aarch64)/.test(arch)) return ARM;
  return GENERIC;
}

/**
 * The info pairs hwloc takes from each processor of /proc/cpuinfo (a Package gets those of its
 * first CPU): vendor, model, family, stepping on x86; implementer, part ... on ARM; the model
 * name elsewhere. Values keep their trailing spaces, as hwloc keeps them.
 */
export function parseCpuinfoInfos(text: string, arch: string | null): Map<number, [string, string][]> {
  const keys = keysFor(arch);
  const out = new Map<number, [string, string][]>();
  let cur: [string, string][] | null = null;
  for (const l of text.split('\n')) {
    const colon = l.indexOf(':');
    if (colon < 0) continue;
    const key = l.slice(0, colon).replace(/[ \t]+$/, '');
    const value = l.slice(colon + 1).replace(/^[ \t]+/, '');
    if (key === 'processor') {
      const id = Number(value);
      cur = Number.isInteger(id) ? [] : null;
      if (cur !== null) out.set(id, cur);
      continue;
    }
    const name = keys[key] ?? (keys === GENERIC && key.toLowerCase() === 'cpu' ? 'CPUModel' : undefined);
    if (cur === null || name === undefined || value === '') continue;
    const i = cur.findIndex(([k]) => k === name);
    if (i >= 0) cur[i] = [name, value];
    else cur.push([name, value]);
  }
  return out;
}
