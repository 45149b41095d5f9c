// numakit fleet report --json: schemaVersion 1 (docs/fleet.md). Pure.
import type { FleetReport } from '../model/fleet.js';

export function renderFleetJson(r: FleetReport): string {
  const classOf = new Map(r.classes.flatMap((c, i) => c.hosts.map((h) => [h, i] as const)));
  return (
    JSON.stringify(
      {
        schemaVersion: 1,
        hosts: r.hosts.map((h) => ({
          host: h.host,
          sources: h.sources,
          profile: h.profile,
          settings: h.settings,
          incomplete: h.incomplete,
          class: classOf.get(h.host) ?? null,
          findings: (h.findings ?? [])
            .filter((f) => f.severity !== 'pass')
            .map((f) => ({ id: f.id, severity: f.severity })),
        })),
        classes: r.classes.map((c, index) => ({ index, label: c.label, shape: c.shape, hosts: c.hosts })),
        findings: r.findings,
        outliers: r.outliers,
        incomplete: r.incomplete,
        problems: r.problems,
        profiles: r.profiles,
      },
      null,
      2,
    ) + '\n'
  );
}
