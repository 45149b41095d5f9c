// numakit topo against the tools everyone trusts, in one guest already booted: --numactl equals
// `numactl --hardware`, --json equals hwloc's XML, lstopo reading --xml equals lstopo reading the
// guest's own XML, a snapshot taken in the guest and read on the host equals the live guest (free
// memory aside), and topo --xml equals the guest's own lstopo --of xml. What can run on the host
// does: every process in a guest costs seconds under TCG, and lstopo --input renders an XML the
// same wherever it runs (the host's hwloc is the guest's: the guest's root is the host's). topo.lab.test.ts boots the shared
// topologies for them; plans.lab.test.ts runs them in its two systemd guests (the plans
// topologies), before the servers start.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { canonicalHwlocXml, firstDifference } from '../helpers/hwloc_canon.js';
import { sectionOk } from './assert.js';
import {
  alignFreeLines,
  factsFromHwloc,
  factsFromTopoJson,
  parseNumactlHardware,
  withoutFreeMemory,
  type TopoJson,
} from './compare.js';
import { shellQuote } from './guest.js';
import { parseHwlocXml } from './hwloc_xml.js';
import { guestHelper, NUMAKIT, NUMAKIT_BIN, numakitOnHost } from './numakit.js';
import { nearestInitiator } from './qemu_args.js';
import type { SectionsRun } from './sections.js';
import { resolveTopology, type Topology } from './topology.js';

/** numactl runs as numakit exits (see guest-helpers/numactl_at_exit.mjs); free memory still moves by a few MB (5 MB seen on 8node). */
const FREE_TOLERANCE_MB = 8;

/** The guest's sections the checks read (runSections), by name. */
export const TOPO_SECTIONS: Readonly<Record<string, string>> = {
  numactl: 'numactl --hardware',
  // numactl's output comes back as $LAB_OUT/numactl-at-exit.txt.
  topoNumactl: `LAB_NUMACTL_OUT="$LAB_OUT/numactl-at-exit.txt" node --import ${guestHelper('numactl_at_exit.mjs')} ${shellQuote(NUMAKIT_BIN)} topo --numactl`,
  topoJson: `${NUMAKIT} topo --json`,
  // hwloc's export of the guest, all its components (the host renders it: lstopoOf).
  lstopo: 'lstopo-no-graphics --of xml',
  topoXml: `${NUMAKIT} topo --xml`,
  snapshot: `${NUMAKIT} snapshot "$LAB_OUT/snap"`,
  // The guest's own hwloc export and numakit's, compared whole after the canonical form. hwloc's
  // x86 backend (CPUID) is left out as on the host: numakit reads sysfs as hwloc's Linux one does.
  hwlocXml: 'HWLOC_COMPONENTS=-x86 lstopo-no-graphics --of xml',
};

/**
 * lstopo's view of an XML, as text; Misc objects (DMI memory modules, which numakit does not
 * describe) and I/O are filtered out (docs/topo.md, "hwloc XML").
 */
function lstopoOf(run: SectionsRun, section: string): string {
  const xml = join(run.outDir, `${section}.xml`);
  writeFileSync(xml, sectionOk(run, section).stdout);
  return execFileSync('lstopo-no-graphics', ['--input', xml, '--of', 'console', '--no-io', '--filter', 'misc:none'], {
    encoding: 'utf8',
  });
}

/** Where hwloc should place each CPU-less node: its HMAT initiator's CPUs, else the whole machine. */
function expectedLocality(topology: Topology): Map<number, number[]> {
  const t = resolveTopology(topology);
  const all = t.nodes.flatMap((n) => n.cpus);
  const cpuLess = t.nodes.filter((n) => n.cpus.length === 0);
  return new Map(cpuLess.map((n) => [n.id, t.hmat ? [...(t.nodes[nearestInitiator(t, n.id)]?.cpus ?? [])] : all]));
}

/** The topo checks of TOPO_SECTIONS as tests of the enclosing describe; run() is its guest's result. */
export function topoChecks(topology: Topology, run: () => SectionsRun): void {
  it('the guest kernel has the topology asked for', () => {
    const facts = parseNumactlHardware(sectionOk(run(), 'numactl').stdout);
    const want = resolveTopology(topology);
    assert.deepEqual(facts.cpus, Object.fromEntries(want.nodes.map((n) => [n.id, n.cpus])));
    assert.deepEqual(facts.distances, want.distances);
  });

  it('topo --numactl equals numactl --hardware line for line (free within a few MB)', () => {
    const ours = sectionOk(run(), 'topoNumactl').stdout;
    const theirs = readFileSync(join(run().outDir, 'numactl-at-exit.txt'), 'utf8');
    assert.equal(alignFreeLines(theirs, ours, FREE_TOLERANCE_MB), theirs);
  });

  it('topo --json: node ids, CPU sets, MemTotal and distances equal hwloc (lstopo --of xml)', () => {
    const json = JSON.parse(sectionOk(run(), 'topoJson').stdout) as TopoJson;
    assert.equal(json.schemaVersion, 1);
    const hwloc = factsFromHwloc(parseHwlocXml(sectionOk(run(), 'lstopo').stdout), expectedLocality(topology));
    assert.deepEqual(factsFromTopoJson(json), hwloc);
  });

  it("lstopo --input (numakit topo --xml) shows what lstopo shows of the guest's own XML", () => {
    const theirs = lstopoOf(run(), 'lstopo');
    assert.match(theirs, /NUMANode/);
    assert.equal(lstopoOf(run(), 'topoXml'), theirs);
  });

  it("topo --xml equals the guest's own lstopo --of xml (canonical form, HWLOC_COMPONENTS=-x86)", () => {
    const theirs = canonicalHwlocXml(sectionOk(run(), 'hwlocXml').stdout);
    assert.equal(firstDifference(theirs, canonicalHwlocXml(sectionOk(run(), 'topoXml').stdout)), null);
  });

  it('a snapshot taken in the guest reads on the host like the live guest (free memory aside)', () => {
    sectionOk(run(), 'snapshot');
    const host = numakitOnHost(['topo', '--json', '--root', join(run().outDir, 'snap')]);
    assert.equal(host.code, 0, `numakit topo --root on the host failed:\n${host.stderr}`);
    const live = JSON.parse(sectionOk(run(), 'topoJson').stdout) as unknown;
    assert.deepEqual(withoutFreeMemory(JSON.parse(host.stdout)), withoutFreeMemory(live));
  });
}
