// Specs of the synthetic example machines shipped in examples/. Each is labelled synthetic in
// its manifest; examples captured from a real kernel come from `npm run capture` instead.
import type { SynthSpec } from '../../test/fixtures/synth.js';

const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);

export interface ExampleSpec {
  description: string;
  basis: string;
  spec: SynthSpec;
}

export const EXAMPLE_SPECS: Record<string, ExampleSpec> = {
  'spark-2s': {
    description:
      '2-socket Spark worker: 2 nodes x 16 cores x 2 threads, 96 GiB per node, one 25G NIC port and one NVMe per node, distances 10/21',
    basis:
      'the Spark worker of field report 000 (dual-socket Xeon, numactl -H distances 10/21), untuned: THP always, numa_balancing 1',
    spec: {
      threadsPerCore: 2,
      // Ice Lake-SP, 16 cores: 48K L1d, 32K L1i, 1.25M L2 per core, 24M L3 per socket
      caches: { l1dKb: 48, l1iKb: 32, l2Kb: 1280, l3Kb: 24576 },
      nodes: [
        { id: 0, cpus: [...range(0, 15), ...range(32, 47)], memGiB: 96, freeGiB: 88.5, distances: [10, 21] },
        { id: 1, cpus: [...range(16, 31), ...range(48, 63)], memGiB: 96, freeGiB: 90.2, distances: [21, 10] },
      ],
      devices: [
        {
          kind: 'net',
          name: 'ens1f0',
          pci: '0000:3b:00.0',
          node: 0,
          driver: 'mlx5_core',
          irqs: range(120, 135),
          queues: 16,
          speedMbps: 25000,
        },
        {
          kind: 'net',
          name: 'ens2f0',
          pci: '0000:af:00.0',
          node: 1,
          driver: 'mlx5_core',
          irqs: range(200, 215),
          queues: 16,
          speedMbps: 25000,
        },
        { kind: 'nvme', name: 'nvme0', pci: '0000:5e:00.0', node: 0, driver: 'nvme', irqs: range(140, 148) },
        { kind: 'nvme', name: 'nvme1', pci: '0000:d8:00.0', node: 1, driver: 'nvme', irqs: range(220, 228) },
      ],
      kernel: { productName: 'PowerEdge R740', thpEnabled: 'always', numaBalancing: 1, governor: 'powersave' },
      os: { id: 'ubuntu', versionId: '22.04', idLike: 'debian', prettyName: 'Ubuntu 22.04.4 LTS' },
    },
  },
  'cxl-3node': {
    description: '2 CPU nodes x 8 cores x 2 threads with 64 GiB each, plus node 2: 128 GiB of CXL memory with no CPUs',
    basis: 'a CXL Type-3 memory expander appears as a CPU-less node farther than the remote socket',
    spec: {
      threadsPerCore: 2,
      nodes: [
        { id: 0, cpus: [...range(0, 7), ...range(16, 23)], memGiB: 64, freeGiB: 50, distances: [10, 21, 24] },
        { id: 1, cpus: [...range(8, 15), ...range(24, 31)], memGiB: 64, freeGiB: 52, distances: [21, 10, 30] },
        { id: 2, cpus: [], memGiB: 128, freeGiB: 127.5, distances: [24, 30, 10] },
      ],
      devices: [
        {
          kind: 'net',
          name: 'eth0',
          pci: '0000:17:00.0',
          node: 0,
          driver: 'ice',
          irqs: range(90, 97),
          queues: 8,
          speedMbps: 100000,
        },
        { kind: 'nvme', name: 'nvme0', pci: '0000:65:00.0', node: -1, driver: 'nvme', irqs: range(100, 104) },
      ],
      kernel: { productName: 'SYNTH CXL Server', thpEnabled: 'madvise', numaBalancing: 1, governor: 'performance' },
      os: { id: 'debian', versionId: '12', prettyName: 'Debian GNU/Linux 12 (bookworm)' },
    },
  },
  'epyc-nps4': {
    description:
      '1-socket EPYC in NPS4: 4 nodes x 8 cores x 2 threads, two 4-core CCX (16 MiB L3 each) per node, 32 GiB per node, distances 10/12',
    basis: 'AMD EPYC with NPS4: one socket split into four nodes, near remote distance 12',
    spec: {
      threadsPerCore: 2,
      // Zen 2 (EPYC 7502): 32K L1d, 32K L1i, 512K L2 per core, 16M L3 per 4-core CCX: two L3 groups a node
      caches: { l1dKb: 32, l1iKb: 32, l2Kb: 512, l3Kb: 16384, l3Cores: 4 },
      packageOfNode: { 0: 0, 1: 0, 2: 0, 3: 0 },
      nodes: [0, 1, 2, 3].map((id) => ({
        id,
        cpus: [...range(id * 8, id * 8 + 7), ...range(32 + id * 8, 32 + id * 8 + 7)],
        memGiB: 32,
        freeGiB: 28 - id,
        distances: [0, 1, 2, 3].map((o) => (o === id ? 10 : 12)),
      })),
      devices: [
        {
          kind: 'net',
          name: 'enp65s0f0',
          pci: '0000:41:00.0',
          node: 1,
          driver: 'bnxt_en',
          irqs: range(60, 67),
          queues: 8,
          speedMbps: 50000,
        },
        { kind: 'nvme', name: 'nvme0', pci: '0000:81:00.0', node: 2, driver: 'nvme', irqs: range(70, 78) },
      ],
      kernel: { productName: 'SYNTH EPYC 1S', thpEnabled: 'madvise', numaBalancing: 1, governor: 'schedutil' },
      os: { id: 'rocky', versionId: '9.4', idLike: 'rhel centos fedora', prettyName: 'Rocky Linux 9.4 (Blue Onyx)' },
    },
  },
  'vm-flat-32': {
    description: 'a 32-vCPU cloud VM with 128 GiB and a single NUMA node (no vNUMA), on a 2-socket host',
    basis: 'large cloud VMs whose host does not expose vNUMA: every vCPU looks equally close to all memory',
    spec: {
      threadsPerCore: 2,
      nodes: [{ id: 0, cpus: range(0, 31), memGiB: 128, freeGiB: 100 }],
      devices: [
        {
          kind: 'net',
          name: 'eth0',
          pci: '0000:00:05.0',
          node: -1,
          driver: 'virtio-pci',
          irqs: range(24, 31),
          queues: 8,
        },
      ],
      kernel: {
        productName: 'Standard PC (Q35 + ICH9, 2009)',
        hypervisor: true,
        thpEnabled: 'always',
        numaBalancing: 0,
      },
      os: { id: 'ubuntu', versionId: '24.04', idLike: 'debian', prettyName: 'Ubuntu 24.04 LTS' },
    },
  },
};
