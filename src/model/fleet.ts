// numakit fleet report's vocabulary: what one host contributes (HostRecord, built by
// src/fleet/host.ts or read from a doctor --json file) and what the report says about
// the fleet (FleetReport, built by src/policy/fleet/). Plain data.
import type { Severity } from './finding.js';

/** The shape that puts hosts in one topology class (docs/fleet.md). */
export interface TopologyShape {
  /** CPUs per node, in node order (memory-only nodes: 0). */
  readonly cpus: number[];
  /** MemTotal per node in bytes (null: the node's meminfo is absent). */
  readonly memBytes: (number | null)[];
  /** The distance matrix, rows in node order. */
  readonly distances: number[][];
  readonly nodeIds: number[];
}

/** One finding of one host, as much as the fleet view needs. */
export interface HostFinding {
  readonly id: string;
  readonly rule: string;
  readonly severity: Severity;
  readonly title: string;
}

/** A setting compared across the fleet: a name and its value on this host (null: not read). */
export type Settings = Record<string, string | null>;

export interface HostRecord {
  readonly host: string;
  /** Input files this record came from (a snapshot, a doctor --json, or both). */
  readonly sources: string[];
  /** Null when no snapshot of the host was given (a doctor --json alone). */
  readonly shape: TopologyShape | null;
  readonly settings: Settings | null;
  /** Null when neither a doctor --json nor a snapshot could be audited. */
  readonly findings: HostFinding[] | null;
  /** The doctor profile the findings were judged by. */
  readonly profile: string | null;
  /** Why this host's data is incomplete (empty: complete). */
  readonly incomplete: string[];
}

export interface TopologyClass {
  /** "2 nodes x 64 CPUs, 96 GiB/node, distances 10/21". */
  readonly label: string;
  readonly shape: TopologyShape;
  readonly hosts: string[];
}

export interface FindingRow {
  readonly id: string;
  readonly rule: string;
  readonly severity: Severity;
  readonly title: string;
  readonly hosts: string[];
}

export interface SettingOutlier {
  readonly setting: string;
  /** The most common value: a majority only when hasMajority. */
  readonly majority: string;
  /** Hosts with the most common value, and hosts where the setting was read at all. */
  readonly majorityCount: number;
  readonly known: number;
  /** More than half of the hosts that read the setting have the most common value. */
  readonly hasMajority: boolean;
  /** The hosts with the most common value. */
  readonly commonHosts: string[];
  /** The hosts with another value than the most common one. */
  readonly outliers: { host: string; value: string }[];
}

/** An input that could not be used, in one line ("a.tar.gz: cannot read the archive: ..."). */
export interface InputProblem {
  readonly input: string;
  readonly message: string;
}

export interface FleetReport {
  readonly hosts: HostRecord[];
  readonly classes: TopologyClass[];
  readonly findings: FindingRow[];
  readonly outliers: SettingOutlier[];
  readonly incomplete: { host: string; reasons: string[] }[];
  readonly problems: InputProblem[];
  readonly profiles: string[];
}

export type InputKind = 'snapshot' | 'doctor';

/** What one input file says about one host. */
export interface HostPart {
  readonly kind: InputKind;
  readonly file: string;
  readonly host: string;
  readonly shape: TopologyShape | null;
  readonly settings: Settings | null;
  readonly findings: HostFinding[];
  readonly profile: string;
  /** Topology warnings and rules that could not be checked, for "incomplete". */
  readonly gaps: string[];
}
