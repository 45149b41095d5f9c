// numakit topo against the tools everyone trusts (test/lab/topo_checks.ts), one boot per shared
// topology. The plans topologies (2node-plans, 4node-asym-plans) are checked the same way in the
// systemd guests plans.lab.test.ts boots anyway.
import { after, before, describe } from 'node:test';
import { runSections, type SectionsRun } from './sections.js';
import { topoChecks, TOPO_SECTIONS } from './topo_checks.js';
import { LAB_TOPOLOGIES, PLANS_TOPOLOGIES } from './topologies.js';
import type { Topology } from './topology.js';

const TOPOLOGIES = LAB_TOPOLOGIES.filter((t) => !PLANS_TOPOLOGIES.includes(t));

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
      TOPOLOGIES.map((t, i) => {
        const run = lanes[i % 2]!.then(() => runSections(t, TOPO_SECTIONS, { timeoutMs: 600_000 }));
        lanes[i % 2] = run.catch(() => undefined);
        return [t.name, run];
      }),
    );
  }
  return runs.get(topology.name)!;
}

for (const topology of TOPOLOGIES) {
  describe(`topo in a ${topology.name} guest`, () => {
    let run: SectionsRun;
    before(async () => {
      run = await guestRun(topology);
    });
    after(() => run?.cleanup());
    topoChecks(topology, () => run);
  });
}
