// The same facts in every topo view: for every tree of the hwloc oracle (test/helpers/hwloc_trees.ts),
// the objects of `topo --xml` (the one model, equal to hwloc's export where hwloc reads the tree)
// are counted (Groups, memory-side caches, NUMA nodes by subtype, host bridges, PCI bridges, PCI
// devices, OS devices) and the text, JSON, SVG and HTML views must each carry as many.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runMain } from '../../helpers/cli.js';
import { parseXml } from '../../helpers/hwloc_canon.js';
import { oracleTrees } from '../../helpers/hwloc_trees.js';

const tmp = mkdtempSync(join(tmpdir(), 'numakit-views-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

type El = ReturnType<typeof parseXml>;
type IoType = 'HostBridge' | 'PCIBridge' | 'PCIDev' | 'OSDev';
const IO_TYPES: readonly IoType[] = ['HostBridge', 'PCIBridge', 'PCIDev', 'OSDev'];

interface Counts {
  groups: number;
  memCaches: number;
  /** NUMA node os_indexes by subtype ("" when it has none). */
  numa: Record<string, number[]>;
  io: Record<IoType, number>;
}

/** What the XML holds, by walking its objects. */
function countXml(xml: string): Counts {
  const c: Counts = { groups: 0, memCaches: 0, numa: {}, io: { HostBridge: 0, PCIBridge: 0, PCIDev: 0, OSDev: 0 } };
  const walk = (e: El) => {
    const type = e.name === 'object' ? e.attrs['type'] : undefined;
    if (type === 'Group') c.groups++;
    if (type === 'MemCache') c.memCaches++;
    if (type === 'NUMANode') (c.numa[e.attrs['subtype'] ?? ''] ??= []).push(Number(e.attrs['os_index']));
    if (type === 'Bridge') c.io[e.attrs['bridge_type'] === '0-1' ? 'HostBridge' : 'PCIBridge']++;
    if (type === 'PCIDev' || type === 'OSDev') c.io[type]++;
    e.children.forEach(walk);
  };
  walk(parseXml(xml));
  return c;
}

const count = (s: string, re: RegExp) => [...s.matchAll(re)].length;

/** The I/O tree's lines of the text view, by type. */
function textIo(text: string): Record<IoType, number> {
  const section = /\nI\/O tree \(as hwloc places it, topo --xml\):\n((?: {2}.*\n)*)/.exec(text)?.[1] ?? '';
  const lines = section.split('\n').filter((l) => l.trim() !== '');
  const kind = (l: string): IoType =>
    /^HostBridge\b/.test(l.trim())
      ? 'HostBridge'
      : /^PCIBridge\b/.test(l.trim())
        ? 'PCIBridge'
        : /^PCI /.test(l.trim())
          ? 'PCIDev'
          : 'OSDev';
  return Object.fromEntries(IO_TYPES.map((t) => [t, lines.filter((l) => kind(l) === t).length])) as Record<
    IoType,
    number
  >;
}

/** The SVG's hwloc lines (the HTML page embeds the same picture), by class. */
function svgCounts(svg: string): Pick<Counts, 'groups' | 'memCaches' | 'io'> {
  return {
    groups: count(svg, /class="hwloc-line hwloc-group"/g),
    memCaches: count(svg, /class="hwloc-line memcache"/g),
    io: Object.fromEntries(
      IO_TYPES.map((t) => [t, count(svg, new RegExp(`class="hwloc-line io ${t}"`, 'g'))]),
    ) as Record<IoType, number>,
  };
}

interface ViewJson {
  hwloc: {
    groups: unknown[];
    numa: { id: number; subtype: string | null; memCaches: unknown[] }[];
    io: { type: IoType }[];
  };
}

describe('topo views carry the objects of topo --xml', () => {
  for (const { name, dir, prepare } of oracleTrees(tmp)) {
    it(name, async (t) => {
      prepare();
      const xml = await runMain(['--root', dir, 'topo', '--xml']);
      // A knobs-only fixture is no machine: numakit says so, and there is nothing to show.
      if (/not a snapshot/.test(xml.err)) return t.skip(xml.err.trim());
      const view = async (...args: string[]) => {
        const r = await runMain(['--root', dir, 'topo', ...args]);
        assert.equal(r.code, 0, r.err);
        return r.out;
      };
      const want = countXml(xml.out);
      const subtypes = Object.keys(want.numa);

      const text = await view();
      assert.equal(count(text, /\n {2}Group\d[^:]*: /g), want.groups, 'text: groups');
      assert.equal(count(text, /\n {8}memory-side cache /g), want.memCaches, 'text: memory-side caches');
      for (const id of Object.values(want.numa).flat())
        assert.match(text, new RegExp(`\\nnode ${id} `), `text: node ${id}`);
      assert.deepEqual(textIo(text), want.io, 'text: I/O tree');

      const json = (JSON.parse(await view('--json')) as ViewJson).hwloc;
      assert.equal(json.groups.length, want.groups, 'json: groups');
      assert.equal(
        json.numa.map((n) => n.memCaches.length).reduce((a, b) => a + b, 0),
        want.memCaches,
        'json: memcaches',
      );
      for (const st of subtypes)
        assert.deepEqual(
          json.numa
            .filter((n) => (n.subtype ?? '') === st)
            .map((n) => n.id)
            .sort((a, b) => a - b),
          [...want.numa[st]!].sort((a, b) => a - b),
          `json: NUMA nodes of subtype '${st}'`,
        );
      assert.equal(json.numa.length, Object.values(want.numa).flat().length, 'json: NUMA nodes');
      for (const t of IO_TYPES) assert.equal(json.io.filter((o) => o.type === t).length, want.io[t], `json: ${t}`);

      const { numa: _, ...drawn } = want;
      assert.deepEqual(svgCounts(await view('--svg', '-')), drawn, 'svg');
      const html = await view('--html', '-');
      assert.deepEqual(svgCounts(html), drawn, 'html: picture');
      assert.equal(count(html, /\n {2}Group\d[^:]*: /g), want.groups, 'html: text view groups');
      assert.deepEqual(textIo(html.replace(/&quot;/g, '"')), want.io, 'html: text view I/O tree');
    });
  }
});
