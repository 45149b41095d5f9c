// `numakit topo --xml` (issue 25 item 5): hwloc v2 XML that hwloc's own tools load and show as
// hwloc shows the machine. For each example hwloc can read itself (lstopo --input DIR: the
// synthetic ones, which carry hwloc's mask files), lstopo's console view of numakit's XML equals
// its view of the tree; for every example, the NUMA facts hwloc reads back from the XML
// (lstopo --input FILE --of xml, parsed by test/lab/hwloc_xml.ts) equal topo --json's; on this
// machine, lstopo --input numakit.xml equals lstopo. I/O is left out on both sides (--no-io).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { EXAMPLES_DIR } from '../../../src/cli/examples_dir.js';
import { discoverTopology } from '../../../src/discover/topology.js';
import { distanceGroups } from '../../../src/render/hwloc_groups.js';
import { hwlocTree } from '../../../src/render/hwloc_tree.js';
import { hwlocBitmap } from '../../../src/render/topo_hwloc_xml.js';
import { openRoot } from '../../../src/sysfs/root.js';
import { factsFromHwloc, factsFromTopoJson, type TopoJson } from '../../lab/compare.js';
import { parseHwlocBitmap, parseHwlocXml } from '../../lab/hwloc_xml.js';
import { REPO_DIR, runMain } from '../../helpers/cli.js';
import { skipUnlessTools } from '../../helpers/tools.js';

const tmp = mkdtempSync(join(tmpdir(), 'numakit-xml-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

const examples = readdirSync(EXAMPLES_DIR).filter((n) => existsSync(join(EXAMPLES_DIR, n, 'manifest.json')));
/** hwloc's Linux discovery needs the topology masks (package_cpus or core_siblings); the lab captures predate them. */
const hwlocReadable = (name: string) =>
  existsSync(join(EXAMPLES_DIR, name, 'sys/devices/system/cpu/cpu0/topology/package_cpus'));

/**
 * hwloc on the running system also runs its x86 backend, which reads caches and the CPU model
 * through CPUID where sysfs has none (VMs without cpu*\/cache). numakit reads sysfs and procfs
 * only, so the live machine is compared with hwloc's Linux discovery alone (docs/topo.md).
 */
const LINUX_DISCOVERY = { ...process.env, HWLOC_COMPONENTS: '-x86' };

function tool(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', env });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

async function xmlOf(name: string): Promise<string> {
  const r = await runMain(['--example', name, 'topo', '--xml']);
  assert.equal(r.code, 0, r.err);
  const file = join(tmp, `${name}.xml`);
  writeFileSync(file, r.out);
  return file;
}

describe('hwlocBitmap', () => {
  const cases: [number[], string][] = [
    [[], '0x0'],
    [[0], '0x00000001'],
    [[32], '0x00000001,0x0'],
    [[0, 1, 2, 3, 4, 5, 6, 7, 32, 33, 34, 35, 36, 37, 38, 39], '0x000000ff,0x000000ff'],
    [[31, 95], '0x80000000,0x0,0x80000000'],
  ];
  for (const [ids, want] of cases)
    it(want, () => {
      assert.equal(hwlocBitmap(ids), want);
      assert.deepEqual(parseHwlocBitmap(want), ids);
    });
});

describe('distanceGroups: hwloc groups NUMA nodes by distance', () => {
  const matrix = (rows: number[][]) => (a: number, b: number) => rows[a]?.[b];
  const two4 = Array.from({ length: 8 }, (_, i) =>
    Array.from({ length: 8 }, (_, j) => (i === j ? 10 : Math.floor(i / 4) === Math.floor(j / 4) ? 12 : 32)),
  );
  const cases: [string, number[][], number[][]][] = [
    [
      '8 nodes, two sockets of 4 (12 inside, 32 across): two groups',
      two4,
      [
        [0, 1, 2, 3],
        [4, 5, 6, 7],
      ],
    ],
    [
      'EPYC NPS4, 12 everywhere: none',
      [
        [10, 12, 12, 12],
        [12, 10, 12, 12],
        [12, 12, 10, 12],
        [12, 12, 12, 10],
      ],
      [],
    ],
    [
      '2 nodes: none',
      [
        [10, 21],
        [21, 10],
      ],
      [],
    ],
    // 16 joins 0-1, 1-2, 2-3 transitively: one group of all, so none
    [
      'a 4-node chain 10/16/22/28: none',
      [
        [10, 16, 22, 28],
        [16, 10, 16, 22],
        [22, 16, 10, 16],
        [28, 22, 16, 10],
      ],
      [],
    ],
    [
      'a missing distance: none',
      [
        [10, 12, 32],
        [12, 10],
        [32, 32, 10],
      ],
      [],
    ],
  ];
  it("each grouping is one level up (hwloc's subkind): pairs, then quads", () => {
    const d = (a: number, b: number) => (a === b ? 10 : a >> 1 === b >> 1 ? 12 : a >> 2 === b >> 2 ? 20 : 30);
    const ids = [0, 1, 2, 3, 4, 5, 6, 7];
    assert.deepEqual(
      distanceGroups(ids, d).map((g) => `${g.level}:${g.nodes.join(',')}`),
      ['0:0,1', '0:2,3', '0:4,5', '0:6,7', '1:0,1,2,3', '1:4,5,6,7'],
    );
  });
  for (const [name, rows, want] of cases)
    it(name, () =>
      assert.deepEqual(
        distanceGroups(
          rows.map((_, i) => i),
          matrix(rows),
        ).map((g) => g.nodes),
        want,
      ),
    );
});

describe('where the NUMA nodes hang (hwloc attaches each to its locality)', () => {
  const memoryParents = (name: string) => {
    const out: Record<number, string> = {};
    const walk = (o: ReturnType<typeof hwlocTree>, path: string) => {
      for (const m of o.memory) out[m.id] = `${path}${o.type}`;
      for (const c of o.children) walk(c, `${path}${o.type}>`);
    };
    walk(hwlocTree(discoverTopology(openRoot(join(EXAMPLES_DIR, name)))), '');
    return out;
  };
  const cases: [string, Record<number, string>][] = [
    // a node of two CCX: a Group made for it
    [
      'epyc-nps4',
      {
        0: 'Machine>Package>Group',
        1: 'Machine>Package>Group',
        2: 'Machine>Package>Group',
        3: 'Machine>Package>Group',
      },
    ],
    // node = package = L3: the package, never the cache
    ['spark-2s', { 0: 'Machine>Package', 1: 'Machine>Package' }],
    // one package holds the machine: the package, as hwloc does
    ['vm-flat-32', { 0: 'Machine>Package' }],
    // the CXL node (no HMAT) goes with the CPU node nearest it by SLIT (24 < 30)
    ['cxl-3node', { 0: 'Machine>Package', 1: 'Machine>Package', 2: 'Machine>Package' }],
    // with HMAT, with its initiator's CPUs (node 0's)
    ['lab-3node-cxl', { 0: 'Machine>Package', 1: 'Machine>Package', 2: 'Machine>Package' }],
  ];
  for (const [name, want] of cases) it(name, () => assert.deepEqual(memoryParents(name), want));

  it('cxl-3node: node 2 shares package 0 with node 0', () => {
    const t = hwlocTree(discoverTopology(openRoot(join(EXAMPLES_DIR, 'cxl-3node'))));
    const pkg0 = t.children.find((c) => c.type === 'Package' && c.attrs.os_index === '0')!;
    assert.deepEqual(
      pkg0.memory.map((m) => m.id),
      [0, 2],
    );
  });
});

describe('hwloc reads numakit topo --xml', { skip: skipUnlessTools('lstopo-no-graphics', 'hwloc-calc') }, () => {
  for (const name of examples) {
    it(`${name}: the NUMA facts hwloc reads back equal topo --json`, async () => {
      const file = await xmlOf(name);
      const back = parseHwlocXml(tool('lstopo-no-graphics', ['--input', file, '--of', 'xml']));
      const json = JSON.parse((await runMain(['--example', name, 'topo', '--json'])).out) as TopoJson & {
        nodes: { id: number; cpus: number[] }[];
      };
      // A CPU-less node has its locality's cpuset in hwloc: compare it as "no CPUs of its own".
      const cpuLess = new Map(
        back.nodes.filter((n) => json.nodes.find((j) => j.id === n.id)?.cpus.length === 0).map((n) => [n.id, n.cpus]),
      );
      // One node: hwloc writes no distance matrix (nor does numakit), so there is none to compare.
      const facts = (f: ReturnType<typeof factsFromTopoJson>) =>
        json.nodes.length === 1 ? f.map(({ distances: _, ...rest }) => rest) : f;
      assert.deepEqual(facts(factsFromHwloc(back, cpuLess)), facts(factsFromTopoJson(json)));
    });

    it(`${name}: lstopo --input numakit.xml shows what lstopo --input DIR shows`, {
      skip: hwlocReadable(name) ? false : `${name} is a lab capture without hwloc's topology mask files`,
    }, async () => {
      const file = await xmlOf(name);
      const theirs = tool('lstopo-no-graphics', ['--input', join(EXAMPLES_DIR, name), '--of', 'console', '--no-io']);
      const ours = tool('lstopo-no-graphics', ['--input', file, '--of', 'console', '--no-io']);
      assert.match(theirs, /NUMANode/);
      assert.equal(ours, theirs);
    });
  }

  it('hwloc-calc finds the L3 groups of epyc-nps4 in it', async () => {
    const file = await xmlOf('epyc-nps4');
    assert.equal(tool('hwloc-calc', ['--input', file, '--number-of', 'l3', 'node:0']).trim(), '2');
    assert.equal(
      tool('hwloc-calc', ['--input', file, '--physical-output', '--intersect', 'pu', 'node:2.l3:1']).trim(),
      '20,52,21,53,22,54,23,55',
    );
  });

  it("a snapshot carries hwloc's files: lstopo --input SNAP equals lstopo --input of what it was taken from", async (t) => {
    const bin = join(REPO_DIR, 'dist/cli/bin.js');
    if (!existsSync(bin)) return t.skip('needs a build (npm run build): dist/cli/bin.js');
    const cases: [string[], string[]][] = [
      [
        ['--example', 'epyc-nps4'],
        ['--input', join(EXAMPLES_DIR, 'epyc-nps4')],
      ],
      [[], []], // this machine
    ];
    for (const [i, [from, hwlocFrom]] of cases.entries()) {
      const snap = join(tmp, `snap${i}`);
      tool(process.execPath, [bin, ...from, 'snapshot', snap]);
      assert.equal(
        tool('lstopo-no-graphics', ['--input', snap, '--of', 'console', '--no-io']),
        tool('lstopo-no-graphics', [...hwlocFrom, '--of', 'console', '--no-io'], LINUX_DISCOVERY),
        from.join(' ') || 'this machine',
      );
    }
  });

  it('this machine: lstopo --input numakit.xml equals lstopo (the built CLI, as this user)', (t) => {
    const bin = join(REPO_DIR, 'dist/cli/bin.js');
    if (!existsSync(bin)) return t.skip('needs a build (npm run build): dist/cli/bin.js');
    const file = join(tmp, 'self.xml');
    writeFileSync(file, tool(process.execPath, [bin, 'topo', '--xml']));
    assert.equal(
      tool('lstopo-no-graphics', ['--input', file, '--of', 'console', '--no-io']),
      tool('lstopo-no-graphics', ['--of', 'console', '--no-io'], LINUX_DISCOVERY),
    );
  });
});
