// Host parts -> host records: a host may come with one snapshot and one doctor --json (the
// live audit wins for findings: it saw the processes; the snapshot gives topology and
// settings). Rules doctor could not check show in findings x hosts as "not-checked" rows. A second snapshot or a second doctor report of the same host is a problem named
// in one line; the first, in file order, is used. Pure.
import type { HostPart, HostRecord, InputProblem } from '../../model/fleet.js';

export function mergeHostParts(parts: readonly HostPart[]): { records: HostRecord[]; problems: InputProblem[] } {
  const problems: InputProblem[] = [];
  const byHost = new Map<string, { snapshot?: HostPart; doctor?: HostPart }>();
  for (const p of [...parts].sort((a, b) => a.file.localeCompare(b.file))) {
    const slot = byHost.get(p.host) ?? {};
    const have = slot[p.kind];
    if (have) {
      problems.push({
        input: p.file,
        message: `${p.file}: a second ${p.kind === 'snapshot' ? 'snapshot' : 'doctor report'} of host ${p.host} (${have.file} is used)`,
      });
      continue;
    }
    slot[p.kind] = p;
    byHost.set(p.host, slot);
  }
  const records = [...byHost].map(([host, { snapshot, doctor }]): HostRecord => {
    const audit = doctor ?? snapshot!;
    const incomplete = [
      ...(snapshot ? snapshot.gaps : ['no snapshot: topology and settings unknown']),
      ...(doctor ? doctor.gaps : []),
    ];
    return {
      host,
      sources: [snapshot?.file, doctor?.file].filter((f): f is string => f !== undefined),
      shape: snapshot?.shape ?? null,
      settings: snapshot?.settings ?? null,
      findings: audit.findings,
      profile: audit.profile,
      incomplete,
    };
  });
  return { records, problems };
}
