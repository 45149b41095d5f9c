// Node and CPU specifications as numactl takes them (libnuma numa_parse_nodestring /
// numa_parse_cpustring, numactl(8)): "1", "0-3", "0,2-3", "all", a leading "!" to invert,
// a leading "+" for numbers relative to the current cpuset, and for nodes a device
// ("netdev:eth0", "block:nvme0n1", "pci:0000:3b:00.0", "file:/data") standing for its node.
// Pure: the allowed sets and device lookup come in through SpecContext.
import { formatCpuList } from '../model/cpuset.js';
import { SpecError } from '../model/errors.js';

export { SpecError };

export type DeviceKind = 'netdev' | 'block' | 'pci' | 'file' | 'ip';
export const DEVICE_KINDS: readonly DeviceKind[] = ['netdev', 'block', 'pci', 'file', 'ip'];

export interface SpecContext {
  /** Ids a number may name: Mems_allowed/Cpus_allowed, or all possible ones with --all. */
  readonly allowed: readonly number[];
  /** Every id that exists; "!" inverts within it. */
  readonly universe: readonly number[];
  /** Node of a device (node specs only); throws a SpecError when it cannot say. */
  readonly resolveDevice?: (kind: DeviceKind, id: string) => number;
}

type What = 'node' | 'cpu';

/** Parses a node spec to sorted node ids. */
export function parseNodeSpec(text: string, ctx: SpecContext): number[] {
  return parseSpec(text, 'node', ctx);
}

/** Parses a CPU spec (--physcpubind) to sorted CPU ids. No device forms, as in numactl. */
export function parseCpuSpec(text: string, ctx: SpecContext): number[] {
  return parseSpec(text, 'cpu', ctx);
}

function parseSpec(text: string, what: What, ctx: SpecContext): number[] {
  const fail = (why: string, malformed = false): never => {
    throw new SpecError(`invalid ${what} specification '${text}': ${why}`, { malformed });
  };
  let s = text;
  const invert = s.startsWith('!');
  if (invert) s = s.slice(1);
  const relative = s.startsWith('+');
  if (relative) s = s.slice(1);
  if (s === '') fail(`no ${what}s given`, true);

  const picked = new Set<number>();
  const device = /^([a-z]+):(.*)$/.exec(s);
  if (s === 'all') {
    for (const id of ctx.allowed) picked.add(id);
  } else if (what === 'node' && device !== null && DEVICE_KINDS.includes(device[1] as DeviceKind)) {
    if (device[2] === '') fail(`${device[1]}: needs a device`, true);
    if (ctx.resolveDevice === undefined) fail('device forms cannot be resolved here');
    picked.add(ctx.resolveDevice!(device[1] as DeviceKind, device[2]!));
  } else {
    for (const part of s.split(',')) addPart(part, picked, what, relative, ctx, fail);
  }

  const ids = invert ? ctx.universe.filter((id) => !picked.has(id)) : [...picked];
  if (ids.length === 0) fail(`selects no ${what}s`);
  return ids.sort((a, b) => a - b);
}

function addPart(
  part: string,
  picked: Set<number>,
  what: What,
  relative: boolean,
  ctx: SpecContext,
  fail: (why: string, malformed?: boolean) => never,
): void {
  const m = /^(\d+)(?:-(\d+))?$/.exec(part);
  if (m === null) fail(part === '' ? 'empty list item' : `'${part}' is not a number or A-B range`, true);
  const lo = toId(Number(m![1]), what, relative, ctx, fail);
  const hi = m![2] === undefined ? lo : toId(Number(m![2]), what, relative, ctx, fail);
  if (hi < lo) fail(`range ${part} runs backwards`, true);
  // Like libnuma: both ends must be allowed; ids in between that are not are skipped.
  for (const id of ctx.allowed) if (id >= lo && id <= hi) picked.add(id);
}

/** An absolute id, checked against the allowed set; with "+", the nth allowed id. */
function toId(n: number, what: What, relative: boolean, ctx: SpecContext, fail: (why: string) => never): number {
  const allowed = [...ctx.allowed].sort((a, b) => a - b);
  const list = formatCpuList(allowed) || 'none';
  if (relative) {
    const id = allowed[n];
    if (id === undefined) fail(`+${n} is past the ${allowed.length} ${what}s of this cpuset (${list})`);
    return id!;
  }
  if (!allowed.includes(n)) {
    const exists = ctx.universe.includes(n);
    fail(
      exists
        ? `${what} ${n} is not allowed here (allowed: ${list})`
        : `${what} ${n} does not exist (${what}s: ${formatCpuList(ctx.universe) || 'none'})`,
    );
  }
  return n;
}

/**
 * The sysfs path of a PCI device's numa_node from numactl's "pci:" forms:
 * [domain:]bus:slot[.func], hex, function 0 when left out.
 */
export function pciNumaNodePath(id: string): string {
  const m = /^(?:([0-9a-fA-F]{1,4}):)?([0-9a-fA-F]{1,2}):([0-9a-fA-F]{1,2})(?:\.([0-7]))?$/.exec(id);
  if (m === null) throw new SpecError(`invalid node specification 'pci:${id}': not a PCI address like 0000:3b:00.0`);
  const hex = (v: string | undefined, width: number) =>
    parseInt(v ?? '0', 16)
      .toString(16)
      .padStart(width, '0');
  return `sys/bus/pci/devices/${hex(m[1], 4)}:${hex(m[2], 2)}:${hex(m[3], 2)}.${m[4] ?? '0'}/numa_node`;
}
