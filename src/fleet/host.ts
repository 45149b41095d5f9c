// One fleet input -> what it says about its host: a snapshot archive (read in memory, audited
// with doctor under the report's profile) or a doctor --json file. Errors are one line naming
// the file; src/cli/commands/fleet.ts lists them and reports the rest.
import { basename } from 'node:path';
import { NumakitError, SysfsParseError } from '../model/errors.js';
import type { HostPart, InputKind } from '../model/fleet.js';
import { hostNameOf } from '../sysfs/hostname.js';
import { readText } from '../sysfs/read.js';
import { treeRoot, type SysRoot } from '../sysfs/root.js';
import { readNamedFile } from '../runtime/named_file.js';

export type PartResult = { ok: true; part: HostPart } | { ok: false; file: string; message: string };

export function inputKind(file: string): InputKind | null {
  if (/\.(tar\.gz|tgz)$/.test(file)) return 'snapshot';
  if (/\.json$/.test(file)) return 'doctor';
  return null;
}

/** "w7.tar.gz", "w7.doctor.json", "w7.json" -> "w7". */
export function hostFromFileName(file: string): string {
  return basename(file)
    .replace(/\.(tar\.gz|tgz|json)$/, '')
    .replace(/\.(doctor|snapshot)$/, '');
}

/** The host a snapshot is of: its proc/sys/kernel/hostname, else its manifest's description. */
function snapshotHost(root: SysRoot, file: string): string {
  const name = hostNameOf(root);
  if (name !== null) return name;
  const m = /^snapshot of (\S+) taken by numakit/.exec(
    String((JSON.parse(readText(root, 'manifest.json') ?? '{}') as { description?: unknown }).description ?? ''),
  );
  return m?.[1] ?? hostFromFileName(file);
}

async function readSnapshotPart(file: string, profileName: string): Promise<HostPart> {
  const [{ readSnapshotArchive }, { gatherDoctorInput }, { runDoctor }, { doctorProfile }, { profileByName }, facts] =
    await Promise.all([
      import('../sysfs/snapshot_archive.js'),
      import('../discover/doctor_input.js'),
      import('../policy/doctor/rules.js'),
      import('../policy/doctor/profiles.js'),
      import('../policy/knowledge/profiles.js'),
      import('../policy/fleet/host_facts.js'),
    ]);
  const root = treeRoot(await readSnapshotArchive(file), file);
  if (root.tree?.list('sys') === null)
    throw new NumakitError(`${file}: not a numakit snapshot: no sys/ in the archive`);
  const input = await gatherDoctorInput(root);
  const findings = runDoctor(input, doctorProfile(profileByName(profileName), input));
  const settings = facts.hostSettings(input);
  const unread = facts.CORE_SETTINGS.filter((k) => settings[k] === null);
  return {
    kind: 'snapshot',
    file,
    host: snapshotHost(root, file),
    shape: facts.topologyShape(input.topology),
    settings,
    findings: findings.map((f) => ({ id: f.id, rule: f.rule, severity: f.severity, title: f.title })),
    profile: profileName,
    // A device without a node is doctor's device-node finding, not missing data.
    gaps: [
      ...input.topology.warnings.filter((w) => !/: node unknown \(numa_node/.test(w)),
      ...(unread.length > 0 ? [`not in the snapshot: ${unread.join(', ')}`] : []),
    ],
  };
}

async function readDoctorPart(file: string): Promise<HostPart> {
  const { parseDoctorJson } = await import('../policy/fleet/doctor_json.js');
  const d = parseDoctorJson(readNamedFile(file), file);
  return {
    kind: 'doctor',
    file,
    host: d.host ?? hostFromFileName(file),
    shape: null,
    settings: null,
    findings: d.findings,
    profile: d.profile,
    gaps: [],
  };
}

/** Reads one input; never throws for a bad file (the message names it). */
export async function readHostPart(file: string, profile: string): Promise<PartResult> {
  const kind = inputKind(file);
  try {
    if (kind === null) throw new NumakitError(`${file}: neither a snapshot (.tar.gz) nor a doctor --json file (.json)`);
    return { ok: true, part: kind === 'snapshot' ? await readSnapshotPart(file, profile) : await readDoctorPart(file) };
  } catch (e) {
    if (e instanceof NumakitError) return { ok: false, file, message: e.message };
    if (e instanceof SysfsParseError) return { ok: false, file, message: `${file}: cannot parse ${e.message}` };
    return { ok: false, file, message: `${file}: ${(e as Error).message}` };
  }
}
