// Node/CPU specs against numactl(8)'s examples and libnuma's parsing rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  SpecError,
  parseCpuSpec,
  parseNodeSpec,
  pciNumaNodePath,
  type SpecContext,
} from '../../../src/policy/nodespec.ts';

const range = (lo: number, hi: number) => Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);

// Four nodes and 16 CPUs; this process's cpuset allows nodes 0,1,3 and CPUs 0-5,8-15.
const nodes: SpecContext = {
  allowed: [0, 1, 3],
  universe: [0, 1, 2, 3],
  resolveDevice: (kind, id) => {
    if (kind === 'netdev' && id === 'eth0') return 1;
    if (kind === 'block' && id === 'nvme0n1') return 3;
    throw new SpecError(`no ${kind} device '${id}'`);
  },
};
const cpus: SpecContext = { allowed: [...range(0, 5), ...range(8, 15)], universe: range(0, 15) };

test('node specs: numactl(8) forms', () => {
  const cases: Array<[string, number[]]> = [
    ['all', [0, 1, 3]], // --interleave=all: every node this cpuset allows
    ['1', [1]], // --preferred=1
    ['0,1', [0, 1]], // --membind=0,1
    ['0-1', [0, 1]],
    ['0-3', [0, 1, 3]], // ends allowed, node 2 in between skipped (libnuma)
    ['3,0', [0, 3]],
    ['!0', [1, 2, 3]], // invert within every node that exists
    ['!0-1', [2, 3]],
    ['!all', [2]], // every node outside this cpuset
    ['+0', [0]], // cpuset-relative: the first allowed node
    ['+2', [3]],
    ['+1-2', [1, 3]],
    ['!+0', [1, 2, 3]],
    ['netdev:eth0', [1]], // the node a device sits on
    ['block:nvme0n1', [3]],
  ];
  for (const [spec, expected] of cases) assert.deepEqual(parseNodeSpec(spec, nodes), expected, spec);
});

test('CPU specs: numactl(8) forms', () => {
  const cases: Array<[string, number[]]> = [
    ['+0-4,8-12', [0, 1, 2, 3, 4, 10, 11, 12, 13, 14]], // the man page's --physcpubind=+0-4,8-12: allowed CPUs #0-4 and #8-12
    ['0-4,8-12', [0, 1, 2, 3, 4, 8, 9, 10, 11, 12]],
    ['all', [...range(0, 5), ...range(8, 15)]],
    ['0-13', [...range(0, 5), ...range(8, 13)]],
    ['!0-13', [6, 7, 14, 15]],
    ['+13', [15]],
    ['5', [5]],
  ];
  for (const [spec, expected] of cases) assert.deepEqual(parseCpuSpec(spec, cpus), expected, spec);
});

test('invalid specs are one clear SpecError naming the spec; a malformed one is a usage error (exit 2)', () => {
  const cases: Array<[string, SpecContext, 'node' | 'cpu', RegExp]> = [
    ['5', nodes, 'node', /^invalid node specification '5': node 5 does not exist \(nodes: 0-3\)$/],
    ['2', nodes, 'node', /node 2 is not allowed here \(allowed: 0-1,3\)/],
    ['0-2', nodes, 'node', /node 2 is not allowed here/],
    ['+3', nodes, 'node', /\+3 is past the 3 nodes of this cpuset \(0-1,3\)/],
    ['', nodes, 'node', /no nodes given/],
    ['!', nodes, 'node', /no nodes given/],
    ['!all', { allowed: [0], universe: [0] }, 'node', /selects no nodes/],
    ['1-0', nodes, 'node', /range 1-0 runs backwards/],
    ['0,,1', nodes, 'node', /empty list item/],
    ['x', nodes, 'node', /'x' is not a number or A-B range/],
    ['all,1', nodes, 'node', /'all' is not a number/],
    ['0x1', nodes, 'node', /'0x1' is not a number/],
    ['-1', nodes, 'node', /'-1' is not a number/],
    ['netdev:', nodes, 'node', /netdev: needs a device/],
    ['netdev:wlan9', nodes, 'node', /no netdev device 'wlan9'/],
    ['netdev:eth0', cpus, 'cpu', /'netdev:eth0' is not a number/],
    ['6', cpus, 'cpu', /cpu 6 is not allowed here \(allowed: 0-5,8-15\)/],
    ['16', cpus, 'cpu', /cpu 16 does not exist \(cpus: 0-15\)/],
  ];
  // Not a list at all: a usage error (exit 2). A list naming ids this machine lacks or forbids: 1, as numactl.
  const malformed = new Set(
    ['', '!', '1-0', '0,,1', 'x', 'all,1', '0x1', '-1', 'netdev:']
      .map((x) => `node '${x}'`)
      .concat("cpu 'netdev:eth0'"),
  );
  for (const [spec, ctx, what, message] of cases) {
    const label = `${what} '${spec}'`;
    const parse = what === 'node' ? parseNodeSpec : parseCpuSpec;
    assert.throws(
      () => parse(spec, ctx),
      (err: unknown) => {
        assert.ok(err instanceof SpecError, label);
        assert.equal(err.exitCode, malformed.has(label) ? 2 : 1, label);
        assert.match(err.message, message, spec);
        return true;
      },
      label,
    );
  }
});

test('device forms need a resolver', () => {
  assert.throws(() => parseNodeSpec('pci:3b:00.0', { allowed: [0], universe: [0] }), /cannot be resolved here/);
});

test('pci: addresses as numactl takes them, domain and function optional', () => {
  const cases: Array<[string, string]> = [
    ['0000:3b:00.0', 'sys/bus/pci/devices/0000:3b:00.0/numa_node'],
    ['3b:00.1', 'sys/bus/pci/devices/0000:3b:00.1/numa_node'],
    ['3b:00', 'sys/bus/pci/devices/0000:3b:00.0/numa_node'],
    ['1:5:1f', 'sys/bus/pci/devices/0001:05:1f.0/numa_node'],
    ['0000:3B:00.0', 'sys/bus/pci/devices/0000:3b:00.0/numa_node'],
  ];
  for (const [id, path] of cases) assert.equal(pciNumaNodePath(id), path, id);
  assert.throws(() => pciNumaNodePath('eth0'), /not a PCI address/);
  assert.throws(() => pciNumaNodePath('3b:00.9'), /not a PCI address/);
});
