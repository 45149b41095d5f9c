// The I/O objects of `numakit topo --xml`, built as hwloc's PCI discovery builds them with
// lstopo's default filter (hwloc's pci-common.c and topology.c; docs/topo.md):
//   - a PCI function is an object when its class is one hwloc keeps (storage, network, display,
//     processors, accelerators, fibre channel, InfiniBand, CXL memory, bridges, unclassified);
//   - objects nest by bus number under the PCI-to-PCI bridges whose secondary..subordinate
//     buses hold them; what is left at the top gets one host bridge per (domain, bus) run;
//   - a host bridge hangs under the topmost object whose cpuset is the deepest one holding its
//     first function's local_cpus (the machine when it has none);
//   - an OS device hangs under its PCI function, else the bridge whose buses hold it, else
//     where its bus's local_cpus put it; without a PCI function, beside its NUMA node;
//   - bridges and bridge-class functions left without children are dropped.
// Pure.
import {
  OSDEV_TYPE,
  type HwlocTreeFacts,
  type OsDevice,
  type PciBusId,
  type PciFunction,
  pciBusIdText,
} from '../model/hwloc_io.js';

export interface IoObj {
  readonly type: 'Bridge' | 'PCIDev' | 'OSDev';
  readonly attrs: Record<string, string | number>;
  readonly infos: readonly (readonly [string, string])[];
  children: IoObj[];
  /** The PCI function (PCIDev, PCI bridge) or the buses a bridge covers. */
  readonly pci?: PciFunction;
  readonly range?: { domain: number; secondary: number; subordinate: number };
}

/** Where I/O objects can hang: an object of the CPU tree with its cpuset and I/O children. */
export interface IoParent {
  readonly type: string;
  readonly cpus: readonly number[];
  readonly children: readonly IoParent[];
  readonly memory: readonly { readonly id: number }[];
  readonly io: IoObj[];
}

/** hwloc_filter_check_pcidev_subtype_important. */
export function importantPciClass(classId: number): boolean {
  const base = classId >> 8;
  return (
    [0x00, 0x01, 0x02, 0x03, 0x06, 0x0b, 0x12].includes(base) ||
    classId === 0x0c04 ||
    classId === 0x0c06 ||
    classId === 0x0502
  );
}

const hex = (v: number, w: number) => v.toString(16).padStart(w, '0');

function pciObj(f: PciFunction): IoObj {
  const common = {
    pci_busid: pciBusIdText(f),
    pci_type: `${hex(f.classId, 4)} [${hex(f.vendor, 4)}:${hex(f.device, 4)}] [${hex(f.subVendor, 4)}:${hex(f.subDevice, 4)}] ${hex(f.revision, 2)}`,
    pci_link_speed: f.linkSpeed.toFixed(6),
  };
  const infos: [string, string][] = f.slot === null ? [] : [['PCISlot', f.slot]];
  if (f.bridge === null) return { type: 'PCIDev', attrs: common, infos, children: [], pci: f };
  const range = { domain: f.domain, ...f.bridge };
  const attrs = {
    bridge_type: '1-1',
    bridge_pci: `${hex(f.domain, 4)}:[${hex(range.secondary, 2)}-${hex(range.subordinate, 2)}]`,
    ...common,
  };
  return { type: 'Bridge', attrs, infos, children: [], pci: f, range };
}

type Cmp = 'lower' | 'higher' | 'included' | 'superset';

const covers = (r: IoObj['range'], b: PciBusId) =>
  r !== undefined && r.domain === b.domain && b.bus >= r.secondary && b.bus <= r.subordinate;

/** hwloc_pci_compare_busids: where `a` goes relative to `b`. */
function compare(a: IoObj, b: IoObj): Cmp {
  const x = a.pci!;
  const y = b.pci!;
  if (x.domain !== y.domain) return x.domain < y.domain ? 'lower' : 'higher';
  if (covers(a.range, y)) return 'superset';
  if (covers(b.range, x)) return 'included';
  for (const k of ['bus', 'dev', 'func'] as const) if (x[k] !== y[k]) return x[k] < y[k] ? 'lower' : 'higher';
  return 'higher';
}

/** hwloc_pci_add_object: inserts `o` into a bus-ordered list, under the bridge that holds it. */
function addPci(list: IoObj[], o: IoObj): void {
  for (let i = 0; i < list.length; i++) {
    const c = compare(o, list[i]!);
    if (c === 'higher') continue;
    if (c === 'included') {
      addPci(list[i]!.children, o);
      return;
    }
    list.splice(i, 0, o);
    if (o.range !== undefined) {
      // Later siblings on its buses move under it.
      for (let j = i + 1; j < list.length; ) {
        if (compare(o, list[j]!) === 'lower') j++;
        else o.children.push(...list.splice(j, 1));
      }
    }
    return;
  }
  list.push(o);
}

/** One host bridge for each run of top-level objects on the same domain and bus. */
function hostBridges(top: IoObj[]): IoObj[] {
  const out: IoObj[] = [];
  for (let i = 0; i < top.length; ) {
    const first = top[i]!.pci!;
    const kids: IoObj[] = [];
    let sub = first.bus;
    while (i < top.length && top[i]!.pci!.domain === first.domain && top[i]!.pci!.bus === first.bus) {
      const k = top[i++]!;
      if (k.range !== undefined && k.range.subordinate > sub) sub = k.range.subordinate;
      kids.push(k);
    }
    const range = { domain: first.domain, secondary: first.bus, subordinate: sub };
    out.push({
      type: 'Bridge',
      attrs: { bridge_type: '0-1', bridge_pci: `${hex(first.domain, 4)}:[${hex(first.bus, 2)}-${hex(sub, 2)}]` },
      infos: [],
      children: kids,
      range,
    });
  }
  return out;
}

/** The topmost object whose cpuset is the deepest one holding `cpus` (the machine for none). */
export function ioParentByCpus(root: IoParent, cpus: readonly number[]): IoParent {
  const inMachine = new Set(root.cpus);
  const want = cpus.filter((c) => inMachine.has(c));
  if (want.length === 0) return root;
  const key = want.join(',');
  let at = root;
  for (;;) {
    if (at.cpus.join(',') === key) return at;
    const next = at.children.find((c) => want.every((x) => c.cpus.includes(x)));
    if (next === undefined) return at;
    at = next;
  }
}

/** hwloc__pci_find_by_busid: the function itself, else the smallest bridge whose buses hold it. */
function findByBusId(list: readonly IoObj[], b: PciBusId): IoObj | null {
  for (const c of list) {
    if (c.pci !== undefined) {
      const p = c.pci;
      if (p.domain === b.domain && p.bus === b.bus && p.dev === b.dev && p.func === b.func) return c;
      if (p.domain > b.domain || (p.domain === b.domain && p.bus > b.bus)) return null;
    }
    if (covers(c.range, b)) return findByBusId(c.children, b) ?? c;
  }
  return null;
}

function osDevObj(d: OsDevice): IoObj {
  return {
    type: 'OSDev',
    attrs: { name: d.name, ...(d.subtype === null ? {} : { subtype: d.subtype }), osdev_type: OSDEV_TYPE[d.kind] },
    infos: d.infos,
    children: [],
  };
}

/** Drops bridges and bridge-class functions without children; sets each bridge's depth. */
function filterBridges(list: IoObj[], depth: number): IoObj[] {
  return list.filter((o) => {
    o.children = filterBridges(o.children, depth + 1);
    if (o.type === 'Bridge') o.attrs['depth'] = depth;
    const bridgeLike = o.type === 'Bridge' || (o.type === 'PCIDev' && o.pci!.classId >> 8 === 0x06);
    return !(bridgeLike && o.children.length === 0);
  });
}

function findMemoryParent(o: IoParent, node: number): IoParent | null {
  if (o.memory.some((m) => m.id === node)) return o;
  for (const c of o.children) {
    const f = findMemoryParent(c, node);
    if (f !== null) return f;
  }
  return null;
}

/** Hangs the I/O objects of `facts` in the tree rooted at `machine`. */
export function attachIo(machine: IoParent, facts: HwlocTreeFacts): void {
  const top: IoObj[] = [];
  for (const f of facts.pci) if (f.bridge !== null || importantPciClass(f.classId)) addPci(top, pciObj(f));
  const localOf = new Map(facts.pci.map((f) => [pciBusIdText(f), f.localCpus]));
  const placed: { bridge: IoObj; parent: IoParent }[] = [];
  for (const hb of hostBridges(top)) {
    const first = hb.children[0]!.pci!;
    const parent = ioParentByCpus(machine, localOf.get(pciBusIdText(first)) ?? []);
    parent.io.push(hb);
    placed.push({ bridge: hb, parent });
  }
  for (const d of facts.osDevices) {
    const o = osDevObj(d);
    if (d.pci !== null) {
      const hit = placed.find((p) => covers(p.bridge.range, d.pci!));
      const under = hit === undefined ? null : findByBusId(hit.bridge.children, d.pci);
      if (under !== null) under.children.push(o);
      else if (hit !== undefined) hit.bridge.children.push(o);
      else ioParentByCpus(machine, localOf.get(pciBusIdText(d.pci)) ?? []).io.push(o);
      continue;
    }
    const near = d.numaNode === null ? null : findMemoryParent(machine, d.numaNode);
    (near ?? machine).io.push(o);
  }
  const walk = (p: IoParent) => {
    p.io.splice(0, p.io.length, ...filterBridges(p.io, 0));
    p.children.forEach(walk);
  };
  walk(machine);
}
