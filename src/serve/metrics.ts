// A scrape as Prometheus families: node_exporter's meminfo_numa series (unless
// --no-node-exporter-names), then numakit's own, then how the scrape went.
import { doctorFamilies } from './collect/doctor.js';
import { irqFamilies } from './collect/irqs.js';
import { nodeCpuFamilies } from './collect/node_cpu.js';
import { nodeExporterFamilies } from './collect/node_memory.js';
import { hugepageFamilies, topologyFamilies } from './collect/node_static.js';
import { processFamilies } from './collect/processes.js';
import { cgroupFamilies } from './collect/cgroups.js';
import { selfFamilies } from './collect/self.js';
import { nodeTieringFamilies, tieringFamilies } from './collect/tiering.js';
import { family, s, type Family } from './exposition.js';
import type { Scrape } from './scrape.js';

export interface FamilyOptions {
  readonly nodeExporterNames: boolean;
}

export function scrapeMetaFamilies(sc: Scrape): Family[] {
  return [
    family('numakit_scrape_duration_seconds', 'gauge', 'How long this scrape took', [s(sc.seconds)]),
    family(
      'numakit_scrape_partial',
      'gauge',
      '1 when the scrape ran past its time limit and returns only what it had read',
      [s(sc.partial ? 1 : 0)],
    ),
    family(
      'numakit_scrape_collector_duration_seconds',
      'gauge',
      'How long each collector took in this scrape',
      sc.collectors.map((c) => s(c.seconds, { collector: c.name })),
    ),
    family(
      'numakit_scrape_collector_success',
      'gauge',
      '1 when the collector read everything it looked for (0: see numakit_scrape_gaps)',
      sc.collectors.map((c) => s(c.ok ? 1 : 0, { collector: c.name })),
    ),
    family(
      'numakit_scrape_gaps',
      'gauge',
      'Facts missing from this scrape by collector and reason (unparseable file, process that vanished, no permission, no memory to read it, deadline, error)',
      sc.gaps.map(([collector, reason, n]) => s(n, { collector, reason })),
    ),
    family(
      'numakit_scrape_collector_errors_total',
      'counter',
      'Errors a collector met since the server started (a bug or an unexpected failure, not an absent file: the line on stderr names it); collector="doctor": doctor runs that failed on their worker',
      errorCounted(sc).map((name) => s(sc.errors.get(name) ?? 0, { collector: name })),
    ),
  ];
}

/** The scrape's collectors, then doctor once it has run (its runs fail apart from any scrape). */
function errorCounted(sc: Scrape): string[] {
  const names = sc.collectors.map((c) => c.name);
  if (sc.doctor !== null || sc.errors.has('doctor')) names.push('doctor');
  return names;
}

export function scrapeFamilies(sc: Scrape, o: FamilyOptions): Family[] {
  return [
    ...(o.nodeExporterNames ? nodeExporterFamilies(sc.memory) : []),
    ...nodeCpuFamilies(sc.cpu),
    ...(sc.topology ? topologyFamilies(sc.topology) : []),
    ...hugepageFamilies(sc.hugepages),
    ...tieringFamilies(sc.tiering),
    ...nodeTieringFamilies(sc.nodeTiering),
    ...irqFamilies(sc.irqs),
    ...processFamilies(sc.processes),
    ...cgroupFamilies(sc.cgroups),
    ...doctorFamilies(sc.doctor),
    ...scrapeMetaFamilies(sc),
    ...selfFamilies(),
  ];
}
