// The node layout of a socket named from shaped topologies: SNC (one L3 over several nodes, or
// Intel with one L3 a node), NPS (several L3s inside each node, at most 4 nodes a socket), L3 as
// NUMA (one L3 a node), one node per socket; the shipped epyc-nps4 example too.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { present } from '../../../src/model/fact.js';
import { nodeLayout } from '../../../src/model/layout.js';
import type { Cpu, Topology } from '../../../src/model/topology.js';
import { discoverTopology } from '../../../src/discover/topology.js';
import { openRoot } from '../../../src/sysfs/root.js';
import { kernel, node, topology, withDistances } from '../doctor/build.js';
import { REPO_DIR } from '../../helpers/cli.js';
import { join } from 'node:path';

interface Spec {
  packages: number;
  nodesPerPackage: number;
  cpusPerNode: number;
  /** CPUs per L3, or 'package' for one L3 over the socket. */
  l3: number | 'package';
  model?: string;
  near?: number;
  far?: number;
}

function machine(s: Spec): Topology {
  const count = s.packages * s.nodesPerPackage;
  const ids = Array.from({ length: count }, (_, i) => i);
  const pkg = (n: number) => Math.floor(n / s.nodesPerPackage);
  const nodes = withDistances(
    ids.map((n) =>
      node(
        n,
        Array.from({ length: s.cpusPerNode }, (_, c) => n * s.cpusPerNode + c),
      ),
    ),
    ids.map((a) => ids.map((b) => (a === b ? 10 : pkg(a) === pkg(b) ? (s.near ?? 12) : (s.far ?? 32)))),
  );
  const perPkg = s.nodesPerPackage * s.cpusPerNode;
  const cpus: Cpu[] = nodes.flatMap((n) =>
    n.cpus.map((id) => {
      const size = s.l3 === 'package' ? perPkg : s.l3;
      const first = Math.floor(id / size) * size;
      return {
        id,
        node: n.id,
        online: true,
        package: pkg(n.id),
        die: 0,
        cluster: null,
        core: id,
        siblings: [id],
        l3: Array.from({ length: size }, (_, i) => first + i),
        allowed: true,
      };
    }),
  );
  const models = s.model === undefined ? {} : Object.fromEntries(cpus.map((c) => [String(c.id), s.model!]));
  return topology({ nodes, cpus, kernel: kernel({ cpuModels: present('proc/cpuinfo', models) }) });
}

const XEON = 'Intel(R) Xeon(R) Platinum 8480+';
const EPYC = 'AMD EPYC 9654 96-Core Processor';

const CASES: [string, Spec, string, 'node' | 'socket'][] = [
  [
    'Xeon, SNC off: one node per socket',
    { packages: 2, nodesPerPackage: 1, cpusPerNode: 8, l3: 'package', model: XEON },
    'one node per socket',
    'socket',
  ],
  [
    'Xeon SNC2: one L3 over two nodes',
    { packages: 2, nodesPerPackage: 2, cpusPerNode: 4, l3: 'package', model: XEON, near: 12, far: 21 },
    'SNC2',
    'node',
  ],
  [
    'Xeon SNC4, no model name: the L3 spans four nodes',
    { packages: 2, nodesPerPackage: 4, cpusPerNode: 2, l3: 'package', near: 12, far: 21 },
    'SNC4',
    'node',
  ],
  [
    'Xeon SNC2 with the L3 reported per node',
    { packages: 1, nodesPerPackage: 2, cpusPerNode: 4, l3: 4, model: XEON },
    'SNC2',
    'node',
  ],
  [
    'EPYC NPS1: several CCX L3s in one node',
    { packages: 2, nodesPerPackage: 1, cpusPerNode: 16, l3: 4, model: EPYC },
    'NPS1',
    'socket',
  ],
  ['EPYC NPS2', { packages: 2, nodesPerPackage: 2, cpusPerNode: 8, l3: 4, model: EPYC }, 'NPS2', 'node'],
  [
    'EPYC NPS4, no model name: two L3s per node',
    { packages: 1, nodesPerPackage: 4, cpusPerNode: 8, l3: 4 },
    'NPS4',
    'node',
  ],
  [
    'EPYC L3 as NUMA: eight nodes of one L3',
    { packages: 1, nodesPerPackage: 8, cpusPerNode: 4, l3: 4 },
    'L3 as NUMA',
    'node',
  ],
  [
    'EPYC L3 as NUMA with four CCDs',
    { packages: 1, nodesPerPackage: 4, cpusPerNode: 8, l3: 8, model: EPYC },
    'L3 as NUMA',
    'node',
  ],
  [
    'unknown vendor, caches unknown, 2 nodes a socket',
    { packages: 2, nodesPerPackage: 2, cpusPerNode: 4, l3: 0 },
    '2 nodes per socket',
    'node',
  ],
];

for (const [name, spec, want, bind] of CASES)
  test(`layout: ${name} -> ${want}`, () => {
    const t = machine(spec);
    const l = nodeLayout(spec.l3 === 0 ? { ...t, cpus: t.cpus.map((c) => ({ ...c, l3: [] })) } : t)!;
    assert.equal(l.name, want);
    assert.equal(l.bind, bind);
    assert.equal(l.nodesPerPackage, spec.nodesPerPackage);
    assert.match(l.advice, bind === 'socket' ? /bind per socket/ : /bind per node/);
  });

test('layout: distances inside and across sockets are said', () => {
  const l = nodeLayout(
    machine({ packages: 2, nodesPerPackage: 2, cpusPerNode: 4, l3: 'package', model: XEON, near: 11, far: 21 }),
  )!;
  assert.deepEqual([l.inPackage, l.acrossPackages], [11, 21]);
  assert.match(l.advice, /distance 11 inside a socket, 21 across/);
});

test('layout: a node whose CPUs sit in two packages has none', () => {
  const t = machine({ packages: 2, nodesPerPackage: 1, cpusPerNode: 4, l3: 'package' });
  const one = {
    ...t,
    nodes: [
      node(
        0,
        t.cpus.map((c) => c.id),
      ),
    ],
    cpus: t.cpus.map((c) => ({ ...c, node: 0 })),
  };
  assert.equal(nodeLayout(one), null);
});

test('layout: the shipped epyc-nps4 example is NPS4', () => {
  const t = discoverTopology(openRoot(join(REPO_DIR, 'examples/epyc-nps4')));
  assert.equal(nodeLayout(t)?.name, 'NPS4');
});
