// The numbers the process rules read from a sampled process: memory per node, where it runs,
// its locality (src/policy/locality.ts). Pure.
import type { DoctorInput, ProcessPlacement } from '../../model/doctor_input.js';
import type { Evidence, Finding, NotChecked } from '../../model/finding.js';
import {
  coverageText,
  hiddenText,
  INVISIBLE_TEXT,
  largeProcessBytes,
  type ProcessCoverage,
  SAMPLED_BYTES,
} from '../../model/large_process.js';
import { machineMemoryBytes } from '../../model/topology.js';
import { formatBytes } from '../../model/bytes.js';
import type { CpuId, NodeId } from '../../model/topology.js';
import { locality, runNodes } from '../locality.js';
import { ev, notChecked, pass } from './make.js';

export interface ProcessView {
  readonly pid: number;
  readonly comm: string;
  readonly totalBytes: number;
  readonly bytesByNode: Record<NodeId, number>;
  /** Cpus_allowed_list as read (shared, not copied: one list of 1,792 ids serves every process of a large machine). */
  readonly allowedCpus: readonly CpuId[];
  readonly cpusetCgroup: string | null;
  readonly runNodes: NodeId[];
  readonly locality: number | null;
}

/** processViews of each sampled list: several rules look at the same processes. */
const viewsOf = new WeakMap<readonly ProcessPlacement[], readonly ProcessView[]>();

/** Views of the processes whose memory could be read (no-permission ones are left out); made once per list. */
export function processViews(ps: readonly ProcessPlacement[]): readonly ProcessView[] {
  let views = viewsOf.get(ps);
  if (views === undefined) {
    views = Object.freeze(makeViews(ps));
    viewsOf.set(ps, views);
  }
  return views;
}

function makeViews(ps: readonly ProcessPlacement[]): ProcessView[] {
  const out: ProcessView[] = [];
  for (const p of ps) {
    if (p.memory.kind !== 'ok') continue;
    out.push({
      pid: p.pid,
      comm: p.comm,
      totalBytes: p.memory.totalBytes,
      bytesByNode: Object.fromEntries(Object.entries(p.memory.nodes).map(([n, m]) => [Number(n), m.totalBytes])),
      allowedCpus: p.cpusAllowed ?? [],
      cpusetCgroup: p.cpusetCgroup,
      runNodes: runNodes(p),
      locality: locality(p),
    });
  }
  return out;
}

/**
 * What a process rule can look at: the readable processes and how many of the sampled ones they
 * are, or "not checked" when none could be read (numa_maps is the owner's and root's alone).
 * A rule that read no process never passes.
 */
export type ProcessScope =
  | { readonly checked: false; readonly finding: NotChecked }
  | { readonly checked: true; readonly views: readonly ProcessView[]; readonly coverage: ProcessCoverage };

export function processScope(input: DoctorInput, id: string, what: string): ProcessScope {
  if (!input.processes.ok) return { checked: false, finding: notChecked(id, id, what, input.processes.reason) };
  const views = processViews(input.processes.value);
  const coverage: ProcessCoverage = {
    read: views.length,
    of: input.processes.value.length,
    minBytes: largeProcessBytes(SAMPLED_BYTES, machineMemoryBytes(input.topology)),
    hidden: input.hiddenProcesses ?? 0,
    invisible: input.othersInvisible === true,
    ...(input.processesOver === undefined ? {} : { over: input.processesOver }),
  };
  if (coverage.read === 0 && coverage.of > 0) {
    const hidden = unseenText(coverage);
    const reason = `${coverageText(coverage, coverage.of)} unreadable (run as root)${hidden}`;
    return { checked: false, finding: notChecked(id, id, what, reason, [coverageEvidence(coverage)]) };
  }
  return { checked: true, views, coverage };
}

/** "proc/PID/numa_maps: read 2 of 3 processes of 47.5 MiB or more" (and how many were hidden). */
export function coverageEvidence(c: ProcessCoverage): Evidence {
  return ev('proc/*/numa_maps', `read ${coverageText(c, c.read)}${unseenText(c)}`);
}

/** "; 3 processes hidden from this user (...)", "; other users' processes are not listed ...", or ''. */
function unseenText(c: ProcessCoverage): string {
  const parts = [...((c.hidden ?? 0) > 0 ? [hiddenText(c.hidden!)] : []), ...(c.invisible ? [INVISIBLE_TEXT] : [])];
  return parts.map((p) => `; ${p}`).join('');
}

/** Some processes were not read, or not seen: a finding shows coverageEvidence. */
export function partlyRead(c: ProcessCoverage): boolean {
  return c.read < c.of || (c.hidden ?? 0) > 0 || c.invisible === true;
}

/** A pass that says what it read; "partly checked: ..." when some sampled processes were unreadable. */
export function coveredPass(id: string, title: string, c: ProcessCoverage): Finding {
  if ((c.hidden ?? 0) > 0) {
    const unread = c.read < c.of ? `, ${coverageText(c, c.of - c.read)} unreadable` : '';
    const rest =
      c.read === 0 ? `no other process of ${formatBytes(c.minBytes)} or more runs` : `of the ${c.read} read, ${title}`;
    return pass(id, id, `partly checked: ${hiddenText(c.hidden!)}${unread}; ${rest}`, [coverageEvidence(c)]);
  }
  if (c.of === 0) return pass(id, id, `${title} (no process of ${formatBytes(c.minBytes)} or more runs)`);
  if (c.read === c.of) return pass(id, id, `${title} (${coverageText(c, c.read)} read)`, [coverageEvidence(c)]);
  return pass(
    id,
    id,
    `partly checked: ${coverageText(c, c.of - c.read)} unreadable (run as root); of the ${c.read} read, ${title}`,
    [coverageEvidence(c)],
  );
}
