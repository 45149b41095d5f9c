// Caches, L3 groups and the PCI bridges above a device in `numakit topo` (issue 25 item 4):
// read once per cache from cpuN/cache/indexM, kept in the model, shown in text, JSON and SVG
// (with the CPU numbers drawn); a tree without cache directories says so and shows none.
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { EXAMPLES_DIR } from '../../../src/cli/examples_dir.js';
import { discoverTopology } from '../../../src/discover/topology.js';
import { cacheName, l3Groups } from '../../../src/model/topology.js';
import { Warnings } from '../../../src/model/warnings.js';
import { cacheLines, cacheSizeText, cacheSummary } from '../../../src/render/topo_caches.js';
import { renderTopoSvg } from '../../../src/render/topo_svg.js';
import { readMachineCaches } from '../../../src/sysfs/cpu_cache.js';
import { pciPathOf } from '../../../src/sysfs/devices.js';
import { openRoot } from '../../../src/sysfs/root.js';
import { runMain } from '../../helpers/cli.js';
import { topology as buildTopology } from '../doctor/build.js';

const tmp = mkdtempSync(join(tmpdir(), 'numakit-caches-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

function put(root: string, rel: string, text: string): void {
  mkdirSync(join(root, rel, '..'), { recursive: true });
  writeFileSync(join(root, rel), text);
}

/** 4 CPUs: 2 cores x 2 threads (0,2 and 1,3), L1d/L2 per core, one L3; cpu3's L2 has no size. No topology/ files: "per 2 CPUs", not "per core". */
function tree(): string {
  const root = mkdtempSync(join(tmp, 'm-'));
  for (const cpu of [0, 1, 2, 3]) {
    const sib = cpu % 2 === 0 ? '0,2' : '1,3';
    const idx = (i: number, level: number, type: string, size: string | null, shared: string) => {
      const d = `sys/devices/system/cpu/cpu${cpu}/cache/index${i}`;
      put(root, `${d}/level`, `${level}\n`);
      put(root, `${d}/type`, `${type}\n`);
      put(root, `${d}/shared_cpu_list`, `${shared}\n`);
      if (size !== null) put(root, `${d}/size`, size);
    };
    idx(0, 1, 'Data', '48K\n', sib);
    idx(2, 2, 'Unified', cpu === 3 ? null : '2048K\n', sib);
    idx(3, 3, 'Unified', '32768K\n', '0-3');
  }
  return root;
}

describe('readMachineCaches', () => {
  it('lists each cache once, with its size and sharers, the same read shared or per CPU', () => {
    const root = openRoot(tree());
    const own = readMachineCaches(root, [0, 1, 2, 3], { shared: false });
    const shared = readMachineCaches(root, [0, 1, 2, 3], { shared: true });
    const show = (cs: typeof own) => cs.map((c) => `${cacheName(c)} ${c.sizeBytes} ${c.cpus.join(',')}`).sort();
    assert.deepEqual(show(shared), show(own));
    assert.deepEqual(show(shared), [
      'L1d 49152 0,2',
      'L1d 49152 1,3',
      'L2 2097152 0,2',
      // cpu1 is read first for the core 1,3: cpu3's own L2 (no size file) is the same cache
      'L2 2097152 1,3',
      'L3 33554432 0,1,2,3',
    ]);
  });

  it('shared: a thread of a core already read has nothing left to read, and its cache/ is not listed', () => {
    const read: string[] = [];
    const root = { ...openRoot(tree()), onAccess: (_kind: string, rel: string) => void read.push(rel) };
    const caches = readMachineCaches(root, [0, 1, 2, 3], { shared: true });
    assert.equal(caches.length, 5);
    const cpusRead = [...new Set(read.map((r) => /cpu(\d+)\/cache/.exec(r)?.[1]))].sort();
    assert.deepEqual(cpusRead, ['0', '1']);
    // Per CPU, every CPU's directory is listed.
    read.length = 0;
    readMachineCaches(root, [0, 1, 2, 3], { shared: false });
    assert.deepEqual([...new Set(read.map((r) => /cpu(\d+)\/cache/.exec(r)?.[1]))].sort(), ['0', '1', '2', '3']);
  });

  it('an index with a type the kernel never writes costs only that index, with a warning naming it', () => {
    const dir = tree();
    put(dir, 'sys/devices/system/cpu/cpu0/cache/index0/type', 'Trace\n');
    const warnings = new Warnings();
    const root = { ...openRoot(dir), warnings };
    const caches = readMachineCaches(root, [0], { shared: false });
    assert.deepEqual(
      caches.map((c) => cacheName(c)),
      ['L2', 'L3'],
    );
    assert.match(JSON.stringify(warnings.list()), /index0\/type.*not a cache type/);
  });
});

describe('caches in the topology', () => {
  const epyc = discoverTopology(openRoot(join(EXAMPLES_DIR, 'epyc-nps4')));

  it('epyc-nps4: two 4-core CCX L3 groups per node, L1/L2 per core', () => {
    assert.deepEqual(l3Groups(epyc, epyc.nodes[0]!.cpus), [
      [0, 1, 2, 3, 32, 33, 34, 35],
      [4, 5, 6, 7, 36, 37, 38, 39],
    ]);
    assert.equal(epyc.caches.filter((c) => c.level === 3).length, 8);
    assert.equal(epyc.caches.filter((c) => cacheName(c) === 'L1d').length, 32);
    assert.deepEqual(epyc.cpus.find((c) => c.id === 37)!.l3, [4, 5, 6, 7, 36, 37, 38, 39]);
    assert.equal(
      cacheSummary(epyc, epyc.nodes[0]!.cpus),
      'L1d 32 KiB, L1i 32 KiB, L2 512 KiB per core; L3 16 MiB per 8 CPUs',
    );
  });

  it('views without caches (numactl --hardware, overview, doctor ...) read no cache file', () => {
    const read: string[] = [];
    const t = discoverTopology(
      { ...openRoot(join(EXAMPLES_DIR, 'epyc-nps4')), onAccess: (_kind, rel) => void read.push(rel) },
      { caches: false },
    );
    assert.deepEqual(t.caches, []);
    assert.deepEqual(
      read.filter((r) => r.includes('/cache')),
      [],
    );
    assert.ok(read.some((r) => r.includes('/topology/')));
  });

  it('a cache without a size says so; when no cache has one, the line says it once', () => {
    const t = discoverTopology(openRoot(tree()));
    assert.equal(cacheSummary(t, [0, 1, 2, 3]), 'L1d 48 KiB, L2 2 MiB per 2 CPUs; L3 32 MiB per 4 CPUs');
    // lab-2node with no cache's size file (as captures made before numakit recorded them).
    const dir = join(tmp, 'nosize');
    cpSync(join(EXAMPLES_DIR, 'lab-2node'), dir, { recursive: true });
    for (const cpu of [0, 1, 2, 3])
      for (const idx of [0, 1, 2, 3])
        rmSync(join(dir, `sys/devices/system/cpu/cpu${cpu}/cache/index${idx}/size`), { force: true });
    const lab = discoverTopology(openRoot(dir));
    assert.equal(cacheSummary(lab, [0, 1]), 'L1d, L1i, L2 per core; L3 per 2 CPUs (sizes unknown)');
    const oneMissing = {
      ...t,
      caches: t.caches.map((c) => (c.level === 2 && c.cpus[0] === 1 ? { ...c, sizeBytes: null } : c)),
    };
    assert.equal(
      cacheSummary(oneMissing, [0, 1, 2, 3]),
      'L1d 48 KiB, L2 (size unknown) per 2 CPUs; L3 32 MiB per 4 CPUs',
    );
  });

  it('sizes print exactly, as sysfs gives them', () => {
    assert.deepEqual([48 * 1024, 1280 * 1024, 32 * 2 ** 20, 1000].map(cacheSizeText), [
      '48 KiB',
      '1280 KiB',
      '32 MiB',
      '1000 B',
    ]);
  });

  it('topo shows the caches and L3 groups in text and JSON, and draws the CPU numbers in the SVG', async () => {
    const text = await runMain(['--example', 'epyc-nps4', 'topo']);
    assert.match(
      text.out,
      /node 0 .*\n.*package 0\n\s+caches L1d 32 KiB, L1i 32 KiB, L2 512 KiB per core; L3 16 MiB per 8 CPUs\n\s+L3 groups 0-3,32-35 \| 4-7,36-39\n/,
    );
    const json = JSON.parse((await runMain(['--example', 'epyc-nps4', 'topo', '--json'])).out) as {
      caches: { name: string; sizeBytes: number; cpus: number[] }[];
    };
    assert.deepEqual(
      json.caches.find((c) => c.name === 'L3'),
      {
        name: 'L3',
        level: 3,
        type: 'Unified',
        sizeBytes: 16 * 2 ** 20,
        cpus: [0, 1, 2, 3, 32, 33, 34, 35],
      },
    );
    const svg = renderTopoSvg(epyc);
    for (const c of epyc.cpus)
      assert.ok(svg.includes(`class="cpu-id" text-anchor="middle">${c.id}</text>`), `CPU ${c.id}`);
    assert.match(svg, /class="caches">L3 groups 0-3,32-35 \| 4-7,36-39</);
  });

  it('a tree without cpuN/cache says the caches are unknown and invents none', async () => {
    const dir = join(tmp, 'nocache');
    cpSync(join(EXAMPLES_DIR, 'lab-2node'), dir, { recursive: true });
    for (const cpu of [0, 1, 2, 3]) rmSync(join(dir, `sys/devices/system/cpu/cpu${cpu}/cache`), { recursive: true });
    const t = discoverTopology(openRoot(dir));
    assert.deepEqual(t.caches, []);
    assert.ok(t.cpus.every((c) => c.l3.length === 0));
    const r = await runMain(['--root', dir, 'topo']);
    assert.doesNotMatch(r.out, /\n\s+caches /);
    assert.match(r.out, /\ncaches: unknown \(sysfs has no cpuN\/cache directories\)\n/);
  });
});

describe('pciPathOf', () => {
  const cases: [string, string[]][] = [
    ['sys/devices/pci0000:00/0000:00:03.0', ['pci0000:00']],
    ['sys/devices/pci0000:40/0000:40:01.1/0000:41:00.0', ['pci0000:40', '0000:40:01.1']],
    ['sys/devices/pci0000:00/0000:00:1c.0/0000:01:00.0/0000:02:00.0', ['pci0000:00', '0000:00:1c.0', '0000:01:00.0']],
    ['sys/devices/platform/foo', []],
  ];
  for (const [dir, want] of cases) it(dir, () => assert.deepEqual(pciPathOf(dir), want));

  it('topo names the bridge a device hangs under', async () => {
    const dir = join(tmp, 'bridge');
    cpSync(join(EXAMPLES_DIR, 'spark-2s'), dir, { recursive: true, verbatimSymlinks: true });
    // Move ens1f0's function under a root port, as on real servers.
    const from = join(dir, 'sys/devices/pci0000:00/0000:3b:00.0');
    const to = join(dir, 'sys/devices/pci0000:00/0000:3a:00.0/0000:3b:00.0');
    mkdirSync(join(to, '..'), { recursive: true });
    cpSync(from, to, { recursive: true, verbatimSymlinks: true });
    rmSync(from, { recursive: true });
    rmSync(join(dir, 'sys/class/net/ens1f0'));
    const { symlinkSync } = await import('node:fs');
    symlinkSync('../../devices/pci0000:00/0000:3a:00.0/0000:3b:00.0/net/ens1f0', join(dir, 'sys/class/net/ens1f0'));
    const r = await runMain(['--root', dir, 'topo']);
    assert.match(r.out, /net ens1f0 \(mlx5_core, 0000:3b:00.0 under 0000:3a:00.0,/);
    const json = JSON.parse((await runMain(['--root', dir, 'topo', '--json'])).out) as {
      devices: { name: string; pciPath: string[] }[];
    };
    assert.deepEqual(json.devices.find((d) => d.name === 'ens1f0')!.pciPath, ['pci0000:00', '0000:3a:00.0']);
  });
});

describe('dies and clusters under a node', () => {
  // Node 0: CPUs 0-3, one package; die and cluster ids as given.
  const topo = (die: (id: number) => number, cluster: (id: number) => number | null) => {
    const t = buildTopology();
    return { ...t, cpus: t.cpus.map((c) => ({ ...c, die: die(c.id), cluster: cluster(c.id) })) };
  };
  const node0 = (t: ReturnType<typeof topo>) => t.cpus.filter((c) => c.node === 0);
  it('two dies in a package get a line; one die none', () => {
    const two = topo(
      (id) => (id < 2 ? 0 : 1),
      () => null,
    );
    assert.deepEqual(cacheLines(two, node0(two)), ['dies 0-1 | 2-3']);
    const one = topo(
      () => 0,
      () => null,
    );
    assert.deepEqual(cacheLines(one, node0(one)), []);
  });
  it('clusters of two cores get a line; a cluster per core (x86) none', () => {
    const pairs = topo(
      () => 0,
      (id) => Math.floor(id / 2),
    );
    assert.deepEqual(cacheLines(pairs, node0(pairs)), ['clusters 0-1 | 2-3']);
    const perCore = topo(
      () => 0,
      (id) => id,
    );
    assert.deepEqual(cacheLines(perCore, node0(perCore)), []);
  });
});
