// numakit topo against the tools everyone trusts, on every shared topology, one boot each:
// --numactl equals `numactl --hardware`, --json equals hwloc's XML, lstopo reading --xml equals
// lstopo reading the guest, and a snapshot taken in the guest and read on the host equals the
// live guest (free memory aside), and topo --xml equals the guest's own lstopo --of xml.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sectionOk } from './assert.js';
import {
  alignFreeLines,
  factsFromHwloc,
  factsFromTopoJson,
  parseNumactlHardware,
  withoutFreeMemory,
  type TopoJson,
} from './compare.js';
import { canonicalHwlocXml, firstDifference } from '../helpers/hwloc_canon.js';
import { parseHwlocXml } from './hwloc_xml.js';
import { shellQuote } from './guest.js';
import { guestHelper, NUMAKIT, NUMAKIT_BIN, numakitOnHost } from './numakit.js';
import { runSections, type SectionsRun } from './sections.js';
import { LAB_TOPOLOGIES } from './topologies.js';
import { nearestInitiator } from './qemu_args.js';
import { resolveTopology, type Topology } from './topology.js';

/** numactl runs as numakit exits (see guest-helpers/numactl_at_exit.mjs); free memory still moves by a few MB (5 MB seen on 8node). */
const FREE_TOLERANCE_MB = 8;

const SECTIONS = {
  numactl: 'numactl --hardware',
  topoNumactl: `LAB_NUMACTL_OUT="$LAB_OUT/numactl-at-exit.txt" node --import ${guestHelper('numactl_at_exit.mjs')} ${shellQuote(NUMAKIT_BIN)} topo --numactl`,
  numactlAtExit: 'cat "$LAB_OUT/numactl-at-exit.txt"',
  topoJson: `${NUMAKIT} topo --json`,
  lstopo: 'lstopo-no-graphics --of xml',
  // hwloc's view of the guest and of numakit's XML of it; Misc objects (DMI memory modules, which
  // numakit does not describe) and I/O are filtered out of both (docs/topo.md, "hwloc XML").
  lstopoConsole: 'lstopo-no-graphics --of console --no-io --filter misc:none',
  lstopoOfXml: `${NUMAKIT} topo --xml > "$LAB_OUT/numakit.xml" && lstopo-no-graphics --input "$LAB_OUT/numakit.xml" --of console --no-io --filter misc:none`,
  snapshot: `${NUMAKIT} snapshot "$LAB_OUT/snap"`,
  // The guest's own hwloc export and numakit's, compared whole after the canonical form. hwloc's
  // x86 backend (CPUID) is left out as on the host: numakit reads sysfs as hwloc's Linux one does.
  hwlocXml: 'HWLOC_COMPONENTS=-x86 lstopo-no-graphics --of xml',
  // The XML lstopoOfXml had numakit write: the same command's output, without a second Node.js
  // start (seconds under TCG).
  topoXml: 'cat "$LAB_OUT/numakit.xml"',
};

/** Where hwloc should place each CPU-less node: its HMAT initiator's CPUs, else the whole machine. */
function expectedLocality(topology: Topology): Map<number, number[]> {
  const t = resolveTopology(topology);
  const all = t.nodes.flatMap((n) => n.cpus);
  const cpuLess = t.nodes.filter((n) => n.cpus.length === 0);
  return new Map(cpuLess.map((n) => [n.id, t.hmat ? [...(t.nodes[nearestInitiator(t, n.id)]?.cpus ?? [])] : all]));
}

/**
 * Every topology's guest run, two at a time (the first hook starts them; each describe awaits
 * its own): a guest spends most of its run in one Node.js or hwloc process on one vCPU, so a
 * guest alone leaves the second core of a 2-core host idle. Each has 600 s: two share a loaded host.
 */
let runs: Map<string, Promise<SectionsRun>> | undefined;
function guestRun(topology: Topology): Promise<SectionsRun> {
  if (runs === undefined) {
    const lanes: Promise<unknown>[] = [Promise.resolve(), Promise.resolve()];
    runs = new Map(
      LAB_TOPOLOGIES.map((t, i) => {
        const run = lanes[i % 2]!.then(() => runSections(t, SECTIONS, { timeoutMs: 600_000 }));
        lanes[i % 2] = run.catch(() => undefined);
        return [t.name, run];
      }),
    );
  }
  return runs.get(topology.name)!;
}

for (const topology of LAB_TOPOLOGIES) {
  describe(`topo in a ${topology.name} guest`, () => {
    let run: SectionsRun;
    before(async () => {
      run = await guestRun(topology);
    });
    after(() => run?.cleanup());

    it('the guest kernel has the topology asked for', () => {
      const facts = parseNumactlHardware(sectionOk(run, 'numactl').stdout);
      const want = resolveTopology(topology);
      assert.deepEqual(facts.cpus, Object.fromEntries(want.nodes.map((n) => [n.id, n.cpus])));
      assert.deepEqual(facts.distances, want.distances);
    });

    it('topo --numactl equals numactl --hardware line for line (free within a few MB)', () => {
      const ours = sectionOk(run, 'topoNumactl').stdout;
      const theirs = sectionOk(run, 'numactlAtExit').stdout;
      assert.equal(alignFreeLines(theirs, ours, FREE_TOLERANCE_MB), theirs);
    });

    it('topo --json: node ids, CPU sets, MemTotal and distances equal hwloc (lstopo --of xml)', () => {
      const json = JSON.parse(sectionOk(run, 'topoJson').stdout) as TopoJson;
      assert.equal(json.schemaVersion, 1);
      const hwloc = factsFromHwloc(parseHwlocXml(sectionOk(run, 'lstopo').stdout), expectedLocality(topology));
      assert.deepEqual(factsFromTopoJson(json), hwloc);
    });

    it('lstopo --input (numakit topo --xml) shows what lstopo shows of the guest', () => {
      const theirs = sectionOk(run, 'lstopoConsole').stdout;
      assert.match(theirs, /NUMANode/);
      assert.equal(sectionOk(run, 'lstopoOfXml').stdout, theirs);
    });

    it("topo --xml equals the guest's own lstopo --of xml (canonical form, HWLOC_COMPONENTS=-x86)", () => {
      const theirs = canonicalHwlocXml(sectionOk(run, 'hwlocXml').stdout);
      assert.equal(firstDifference(theirs, canonicalHwlocXml(sectionOk(run, 'topoXml').stdout)), null);
    });

    it('a snapshot taken in the guest reads on the host like the live guest (free memory aside)', () => {
      sectionOk(run, 'snapshot');
      const host = numakitOnHost(['topo', '--json', '--root', join(run.outDir, 'snap')]);
      assert.equal(host.code, 0, `numakit topo --root on the host failed:\n${host.stderr}`);
      const live = JSON.parse(sectionOk(run, 'topoJson').stdout) as unknown;
      assert.deepEqual(withoutFreeMemory(JSON.parse(host.stdout)), withoutFreeMemory(live));
    });
  });
}
