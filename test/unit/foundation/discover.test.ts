// discoverTopology on fixture trees that carry the kernel facts numakit must respect.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { discoverTopology } from '../../../src/discover/topology.js';
import { EXAMPLES_DIR } from '../../../src/cli/examples_dir.js';
import { physicalCores } from '../../../src/model/topology.js';
import { resolvePath } from '../../../src/sysfs/read.js';
import { openRoot } from '../../../src/sysfs/root.js';
import { TEST_DIR } from '../../helpers/cli.js';

const fixture = (name: string) => openRoot(join(TEST_DIR, 'fixtures/topo', name));
const example = (name: string) => openRoot(join(EXAMPLES_DIR, name));

describe('discoverTopology', () => {
  it('keeps sparse node ids and maps distances by id', () => {
    const t = discoverTopology(fixture('sparse-nodes'));
    assert.deepEqual(
      t.nodes.map((n) => n.id),
      [0, 2],
    );
    assert.deepEqual(t.nodes[1]!.distances, { 0: 32, 2: 10 });
  });
  it('marks an offline CPU and still knows its node', () => {
    const t = discoverTopology(fixture('sparse-nodes'));
    const cpu3 = t.cpus.find((c) => c.id === 3)!;
    assert.equal(cpu3.online, false);
    assert.equal(cpu3.node, 2);
    assert.deepEqual(t.nodes[1]!.cpus, [2]);
  });
  it('reads huge page pools of every size', () => {
    const hp = discoverTopology(fixture('sparse-nodes')).nodes[1]!.hugepages;
    assert.deepEqual(
      hp.map((p) => [p.sizeKb, p.total, p.free]),
      [
        [2048, 512, 500],
        [1048576, 4, 4],
      ],
    );
  });
  it('treats a node without meminfo as absent data with a warning', () => {
    const t = discoverTopology(fixture('no-meminfo'));
    assert.equal(t.nodes[1]!.memTotalBytes, null);
    assert.ok(t.warnings.some((w) => /node 1: no meminfo/.test(w)));
  });
  it('falls back to one node when the kernel has no NUMA sysfs', () => {
    const t = discoverTopology(fixture('numa-off'));
    assert.equal(t.nodes.length, 1);
    assert.deepEqual(t.nodes[0]!.cpus, [0, 1, 2, 3]);
    assert.equal(t.nodes[0]!.memTotalBytes, 32 * 2 ** 30);
    assert.match(t.kernel.cmdline.value ?? '', /numa=off/);
  });
  it('reads HMAT access0 and memory tiers', () => {
    const t = discoverTopology(fixture('hmat-tiers'));
    assert.deepEqual(t.nodes[2]!.access?.initiators, [0, 1]);
    assert.equal(t.nodes[2]!.access?.readLatencyNs, 250);
    assert.equal(t.nodes[2]!.memoryTier, 22);
    assert.equal(t.nodes[2]!.hasCpu, false);
  });
  it('puts devices on their node and -1 on no node (never node 0)', () => {
    const t = discoverTopology(example('cxl-3node'));
    assert.equal(t.devices.find((d) => d.name === 'eth0')?.node, 0);
    assert.equal(t.devices.find((d) => d.name === 'nvme0')?.node, null);
    assert.ok(t.warnings.some((w) => /nvme nvme0: unknown node/.test(w)));
  });
  it('reads the spark-2s example as seed 000 describes it', () => {
    const t = discoverTopology(example('spark-2s'));
    assert.equal(t.nodes.length, 2);
    for (const n of t.nodes) {
      assert.equal(physicalCores(t.cpus.filter((c) => c.node === n.id)), 16);
      assert.equal(n.cpus.length, 32);
      assert.equal(n.memTotalBytes, 96 * 2 ** 30);
    }
    const nets = t.devices.filter((d) => d.kind === 'net');
    assert.deepEqual(
      nets.map((d) => [d.name, d.node, d.irqs.length, d.queues?.rx]),
      [
        ['ens1f0', 0, 16, 16],
        ['ens2f0', 1, 16, 16],
      ],
    );
    assert.deepEqual(
      t.devices.filter((d) => d.kind === 'nvme').map((d) => [d.name, d.node, d.transport]),
      [
        ['nvme0', 0, 'pcie'],
        ['nvme1', 1, 'pcie'],
      ],
    );
    assert.equal(t.kernel.thpEnabled.value, 'always');
  });
  it('reads the AutoNUMA scan knobs from debugfs (5.13+), and reports them absent with their path', () => {
    assert.deepEqual(discoverTopology(fixture('sparse-nodes')).kernel.numaBalancingScan.sizeMb, {
      path: 'sys/kernel/debug/sched/numa_balancing/scan_size_mb',
      value: 256,
    });
    const t = discoverTopology(fixture('numa-off'));
    assert.deepEqual(t.kernel.numaBalancingScan.sizeMb, {
      path: 'sys/kernel/debug/sched/numa_balancing/scan_size_mb',
      value: null,
      absent: 'missing',
    });
  });
});

describe('resolvePath', () => {
  it('follows relative links component by component inside the root', () => {
    const dir = mkdtempSync(join(tmpdir(), 'numakit-links-'));
    const mk = (rel: string) => mkdirSync(join(dir, rel), { recursive: true });
    const ln = (rel: string, target: string) => {
      mkdirSync(dirname(join(dir, rel)), { recursive: true });
      symlinkSync(target, join(dir, rel));
    };
    mk('sys/devices/pci0000:00/0000:00:03.0/virtio2/net/eth0');
    writeFileSync(join(dir, 'sys/devices/pci0000:00/0000:00:03.0/numa_node'), '1\n');
    ln('sys/class/net/eth0', '../../devices/pci0000:00/0000:00:03.0/virtio2/net/eth0');
    ln('sys/devices/pci0000:00/0000:00:03.0/virtio2/net/eth0/device', '../../../virtio2');
    const root = openRoot(dir);
    assert.equal(resolvePath(root, 'sys/class/net/eth0/device'), 'sys/devices/pci0000:00/0000:00:03.0/virtio2');
    assert.equal(resolvePath(root, 'sys/class/net/eth0/device/..'), 'sys/devices/pci0000:00/0000:00:03.0');
  });
});
