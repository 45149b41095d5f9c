// The fleet report from host records and the inputs that could not be read. Pure.
import type { FleetReport, HostRecord, InputProblem, Settings, TopologyShape } from '../../model/fleet.js';
import { topologyClasses } from './classes.js';
import { findingRows } from './findings.js';
import { settingOutliers } from './outliers.js';

export function buildFleetReport(records: readonly HostRecord[], problems: readonly InputProblem[]): FleetReport {
  const hosts = [...records].sort((a, b) => a.host.localeCompare(b.host));
  const withShape = hosts.filter((h): h is HostRecord & { shape: TopologyShape } => h.shape !== null);
  const withSettings = hosts.filter((h): h is HostRecord & { settings: Settings } => h.settings !== null);
  const withFindings = hosts.flatMap((h) => (h.findings === null ? [] : [{ host: h.host, findings: h.findings }]));
  return {
    hosts,
    classes: topologyClasses(withShape),
    findings: findingRows(withFindings),
    outliers: settingOutliers(withSettings),
    incomplete: hosts.filter((h) => h.incomplete.length > 0).map((h) => ({ host: h.host, reasons: h.incomplete })),
    problems: [...problems].sort((a, b) => a.input.localeCompare(b.input)),
    profiles: [...new Set(hosts.flatMap((h) => (h.profile === null ? [] : [h.profile])))].sort(),
  };
}
