// The readers and the I/O tree behind `topo --xml`'s host bridges, PCI functions and OS
// devices, and the machine's info pairs (docs/topo.md, "Equal to hwloc"). The oracle test
// (hwloc_oracle.test.ts) checks the whole against hwloc; these pin each rule.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HwlocFacts, PciFunction } from '../../../src/model/hwloc_io.js';
import { cpuKinds } from '../../../src/render/hwloc_cpukinds.js';
import { attachIo, importantPciClass, type IoParent } from '../../../src/render/hwloc_io_tree.js';
import {
  hasCpusetMount,
  parseCgroupName,
  parseCpuinfoInfos,
  parseNofileInfo,
} from '../../../src/sysfs/hwloc_machine_info.js';
import { parseMemoryDevice } from '../../../src/sysfs/dmi_memory.js';
import { pciOfDevicePath } from '../../../src/sysfs/os_devices.js';
import { parseLinkSpeedText, parsePciConfig, pcieLinkSpeed } from '../../../src/sysfs/pci_functions.js';

describe('PCIe link speed, as hwloc computes it in single precision', () => {
  it('per generation and width', () => {
    assert.equal(pcieLinkSpeed(1, 1).toFixed(6), '0.250000');
    assert.equal(pcieLinkSpeed(3, 16).toFixed(6), '15.753846');
    assert.equal(pcieLinkSpeed(4, 4).toFixed(6), '7.876923');
    assert.equal(pcieLinkSpeed(6, 8).toFixed(6), '60.500000');
  });
  it('from current_link_speed', () => {
    assert.equal(parseLinkSpeedText('8.0 GT/s PCIe\n').toFixed(6), '7.876923');
    assert.equal(parseLinkSpeedText('2.5 GT/s PCIe').toFixed(6), '2.000000');
    assert.equal(parseLinkSpeedText('Unknown'), 0);
  });
});

describe('parsePciConfig', () => {
  const config = () => {
    const c = new Uint8Array(256);
    c[0x06] = 0x10; // capability list
    c[0x08] = 0x02; // revision
    c[0x0e] = 0x81; // multi-function, header type 1
    c[0x19] = 0x3b;
    c[0x1a] = 0x3c;
    c[0x34] = 0x40;
    c.set([0x01, 0x50], 0x40); // power management, next 0x50
    c.set([0x10, 0x00], 0x50); // PCI Express
    c[0x50 + 0x12] = 0x43; // gen 3, x4
    return c;
  };
  it('reads the revision, bridge buses and the link status of the PCIe capability', () => {
    const p = parsePciConfig(config());
    assert.deepEqual(
      { ...p, linkSpeed: p.linkSpeed?.toFixed(6) },
      {
        revision: 2,
        bridgeHeader: true,
        secondary: 0x3b,
        subordinate: 0x3c,
        linkSpeed: '3.938462',
      },
    );
  });
  it('an unprivileged read (64 bytes) has no capability: null, and unknown bytes are 0xff', () => {
    const p = parsePciConfig(config().subarray(0, 64));
    assert.equal(p.linkSpeed, null);
    assert.equal(parsePciConfig(new Uint8Array(0)).revision, 0xff);
  });
});

describe('pciOfDevicePath', () => {
  it('the last bus id on the path, bridges before it skipped', () => {
    assert.deepEqual(pciOfDevicePath('../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.1/net/ens1f1'), {
      domain: 0,
      bus: 0x3b,
      dev: 0,
      func: 1,
    });
    assert.deepEqual(pciOfDevicePath('../../devices/pci0000:00/0000:00:03.0/virtio2/net/eth0')?.dev, 3);
    assert.equal(pciOfDevicePath('../../devices/platform/serial8250/tty/ttyS0'), null);
  });
});

describe('importantPciClass (lstopo keeps these PCI functions)', () => {
  for (const [cls, want] of [
    [0x0200, true],
    [0x0108, true],
    [0x0302, true],
    [0x1200, true],
    [0x0c06, true],
    [0x0604, true],
    [0x0c03, false],
    [0x0880, false],
    [0x0401, false],
  ] as const)
    it(`0x${cls.toString(16).padStart(4, '0')}: ${want}`, () => assert.equal(importantPciClass(cls), want));
});

describe('machine info readers', () => {
  it('hwloc-nofile-info', () => {
    assert.deepEqual(parseNofileInfo('OSName: Linux\nOSRelease: 6.1.0\nHostName: \nPageSize: 4096\n'), [
      ['OSName', 'Linux'],
      ['OSRelease', '6.1.0'],
    ]);
  });
  it('cpuinfo: x86 keys per processor, trailing spaces kept; elsewhere the model name only', () => {
    const text =
      'processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\nmodel name\t: Xeon  \nstepping\t: 7\n\nprocessor\t: 1\nvendor_id\t: GenuineIntel\n';
    const x86 = parseCpuinfoInfos(text, 'x86_64');
    assert.deepEqual(x86.get(0), [
      ['CPUVendor', 'GenuineIntel'],
      ['CPUFamilyNumber', '6'],
      ['CPUModelNumber', '85'],
      ['CPUModel', 'Xeon  '],
      ['CPUStepping', '7'],
    ]);
    assert.deepEqual(parseCpuinfoInfos(text, null).get(0), [['CPUModel', 'Xeon  ']]);
  });
  it('the cgroup name and the mounts hwloc reads cpusets from', () => {
    assert.equal(parseCgroupName('/slurm/job1\n', '0::/other'), '/slurm/job1');
    assert.equal(parseCgroupName(null, '12:memory:/a\n5:cpuset:/b\n'), '/b');
    assert.equal(parseCgroupName(null, '0::/job.slice\n'), '/job.slice');
    assert.equal(parseCgroupName(null, '3:memory:/a\n'), null);
    const none = () => null;
    assert.equal(hasCpusetMount('cgroup /sys/fs/cgroup/cpuset cgroup rw,cpuset 0 0\n', none), true);
    assert.equal(hasCpusetMount('cgroup /sys/fs/cgroup/memory cgroup rw,memory 0 0\n', none), false);
    const v2 = 'cgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n';
    assert.equal(
      hasCpusetMount(v2, () => 'cpu io memory pids\n'),
      false,
    );
    assert.equal(
      hasCpusetMount(v2, (d) => (d === '/sys/fs/cgroup' ? 'cpuset cpu io memory\n' : null)),
      true,
    );
  });
});

describe('attachIo', () => {
  const pci = (bus: number, classId: number, extra: Partial<PciFunction> = {}): PciFunction => ({
    domain: 0,
    bus,
    dev: 0,
    func: 0,
    classId,
    vendor: 0x8086,
    device: 0x1592,
    subVendor: 0,
    subDevice: 0,
    revision: 2,
    linkSpeed: 0,
    bridge: null,
    localCpus: null,
    slot: null,
    ...extra,
  });
  const tree = () => {
    const node = (
      type: string,
      cpus: number[],
      children: IoParent[] = [],
      memory: { id: number }[] = [],
    ): IoParent => ({
      type,
      cpus,
      children,
      memory,
      io: [],
    });
    const l3 = node('L3Cache', [0, 1]);
    const pkg = node('Package', [0, 1], [l3], [{ id: 0 }]);
    return { machine: node('Machine', [0, 1, 2, 3], [pkg, node('Package', [2, 3], [], [{ id: 1 }])]), pkg, l3 };
  };
  const facts = (p: PciFunction[], os: HwlocFacts['osDevices'] = []): HwlocFacts => ({
    machineInfo: [],
    pci: p,
    osDevices: os,
    cpuInfo: new Map(),
    cpus: null,
    cpuKinds: [],
    memSideCaches: new Map(),
    access: [],
    memoryModules: [],
    allowedNodes: null,
    realRoot: false,
  });

  it('a bridge holds the functions on its buses; the host bridge goes to the topmost object of its local CPUs', () => {
    const { machine, pkg } = tree();
    attachIo(
      machine,
      facts([
        pci(0x3a, 0x0604, { bridge: { secondary: 0x3b, subordinate: 0x3b }, localCpus: [0, 1] }),
        pci(0x3b, 0x0200, { localCpus: [0, 1], slot: '4' }),
        pci(0x3b, 0x0c03, { dev: 1 }), // USB: not kept
      ]),
    );
    assert.equal(machine.io.length, 0);
    assert.equal(pkg.io.length, 1);
    const hb = pkg.io[0]!;
    assert.deepEqual(hb.attrs, { bridge_type: '0-1', bridge_pci: '0000:[3a-3b]', depth: 0 });
    const br = hb.children[0]!;
    assert.equal(br.attrs['bridge_pci'], '0000:[3b-3b]');
    assert.equal(br.attrs['depth'], 1);
    assert.deepEqual(
      br.children.map((c) => [c.attrs['pci_busid'], c.attrs['pci_type'], c.infos]),
      [['0000:3b:00.0', '0200 [8086:1592] [0000:0000] 02', [['PCISlot', '4']]]],
    );
  });

  it('OS devices: under their function, else beside their NUMA node, else the machine; empty bridges dropped', () => {
    const { machine, pkg } = tree();
    const dev = (name: string, bus: number | null, numaNode: number | null) => ({
      name,
      kind: 'network' as const,
      subtype: null,
      infos: [],
      pci: bus === null ? null : { domain: 0, bus, dev: 0, func: 0 },
      numaNode,
    });
    attachIo(
      machine,
      facts(
        [pci(0, 0x0600), pci(0x5e, 0x0108)],
        [dev('nvme-ish', 0x5e, null), dev('ib0', null, 0), dev('virt', null, null)],
      ),
    );
    assert.deepEqual(
      machine.io.map((o) => o.attrs['name'] ?? o.attrs['bridge_pci']),
      ['0000:[5e-5e]', 'virt'],
    );
    assert.equal(machine.io[0]!.children[0]!.children[0]!.attrs['name'], 'nvme-ish');
    assert.deepEqual(
      pkg.io.map((o) => o.attrs['name']),
      ['ib0'],
    );
  });
});

describe('cpuKinds', () => {
  const v = (id: number, maxMHz: number | null, baseMHz: number | null, capacity: number | null) => ({
    id,
    maxMHz,
    baseMHz,
    capacity,
  });
  it('capacity ranks the kinds (forced efficiency), least efficient first', () => {
    assert.deepEqual(cpuKinds([v(0, 3000, null, 1024), v(1, 2000, null, 512), v(2, 2000, null, 512)]), [
      {
        cpus: [1, 2],
        infos: [
          ['FrequencyMaxMHz', '2000'],
          ['LinuxCapacity', '512'],
        ],
        efficiency: 0,
      },
      {
        cpus: [0],
        infos: [
          ['FrequencyMaxMHz', '3000'],
          ['LinuxCapacity', '1024'],
        ],
        efficiency: 1,
      },
    ]);
  });
  it('maximum frequencies within 10% for one base frequency are one kind (the lowest)', () => {
    const k = cpuKinds([v(0, 5200, 2400, null), v(1, 5000, 2400, null), v(2, 3900, 1800, null)]);
    assert.deepEqual(
      k.map((x) => [x.cpus, x.infos[0]![1], x.efficiency]),
      [
        [[2], '3900', null],
        [[0, 1], '5000', null],
      ],
    );
    assert.deepEqual(cpuKinds([v(0, null, null, null)]), []);
  });
});

describe('parseMemoryDevice (SMBIOS type 17, as hwloc reads it)', () => {
  const entry = (strings: string[], refs: number[]) => {
    const h = Buffer.alloc(0x28);
    h[1] = 0x28;
    [0x10, 0x11, 0x17, 0x18, 0x19, 0x1a].forEach((off, i) => {
      h[off] = refs[i] ?? 0;
    });
    return Buffer.concat([h, Buffer.from(`${strings.join('\0')}\0\0`)]);
  };
  it('the strings in order, spaces-only ones left out, up to the first empty one', () => {
    assert.deepEqual(parseMemoryDevice(entry(['DIMM_A1', 'A', 'Samsung', '   ', '', 'PN'], [1, 2, 3, 4, 5, 6])), [
      ['DeviceLocation', 'DIMM_A1'],
      ['BankLocation', 'A'],
      ['Vendor', 'Samsung'],
    ]);
  });
  it('a slot that names only its location is no module; a short entry is none', () => {
    assert.equal(parseMemoryDevice(entry(['DIMM_A2', 'A'], [1, 2, 0, 0, 0, 0])), null);
    assert.equal(parseMemoryDevice(new Uint8Array(8)), null);
  });
});
