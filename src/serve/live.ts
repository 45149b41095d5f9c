// The dashboard's JSON: the topology picture (redrawn when its version changes) and the live
// values of a scrape. Plain data for src/serve/web/app.js.
import { hmatLines, tierLines } from '../render/topo_tiers.js';
import type { Topology } from '../model/topology.js';
import { renderTopoSvg } from '../render/topo_svg.js';
import { summaryLine } from '../render/topo_text.js';
import type { Scrape } from './scrape.js';

/** The agent serving this dashboard (agent --metrics), as /api/live shows it. */
export interface AgentStatus {
  readonly running: boolean;
  readonly pid: number;
  readonly recent: readonly { time: string; line: string }[];
}

function tierText(t: Topology): string[] {
  const hmat = t.nodes.flatMap((n) => hmatLines(n).map((l) => `node ${n.id}: ${l}`));
  return [...tierLines(t), ...hmat];
}

export function topologyJson(sc: Scrape, title: string): object {
  return {
    version: sc.topologyVersion,
    title,
    summary: sc.topology ? summaryLine(sc.topology) : 'topology not readable',
    svg: sc.topology ? renderTopoSvg(sc.topology, { inlineStyle: false }) : '',
    // The memory tiers and each node's HMAT figures, as topo prints them ([] when none).
    tiers: sc.topology ? tierText(sc.topology) : [],
  };
}

/**
 * `snapshot`: the root is a snapshot, whose processes and CPU times hold one reading (nothing
 * moves between two), so the dashboard says why its CPU and process panels are empty.
 */
export function liveJson(sc: Scrape, agent: AgentStatus | null, o: { snapshot?: boolean } = {}): object {
  const mem = (m: Record<string, number> | null, k: string) => m?.[k] ?? null;
  return {
    at: sc.at,
    snapshot: o.snapshot === true,
    scrapeSeconds: sc.seconds,
    partial: sc.partial,
    gaps: sc.gaps,
    topologyVersion: sc.topologyVersion,
    nodes: sc.memory.map((n) => {
      const cpu = sc.cpu.find((c) => c.node === n.node);
      return {
        node: n.node,
        memTotal: mem(n.meminfo, 'MemTotal'),
        memFree: mem(n.meminfo, 'MemFree'),
        numastat: n.numastat,
        // pgpromote_success and pgdemote (nodeN/vmstat) where the kernel counts memory tiering.
        tiering: sc.nodeTiering.find((t) => t.node === n.node)?.counters ?? {},
        cpus: cpu?.cpus ?? 0,
        busyCpus: cpu?.busyCpus ?? null,
        idleCpus: cpu?.idleCpus ?? null,
      };
    }),
    processes: sc.processes.top,
    scanned: sc.processes.scanned,
    doctor:
      sc.doctor === null
        ? null
        : {
            at: sc.doctor.at,
            notChecked: sc.doctor.notChecked.length,
            problems: sc.doctor.problems.map((p) => ({
              severity: p.severity,
              rule: p.rule,
              title: p.title,
              why: p.why,
              fix: p.fix,
            })),
          },
    agent,
  };
}
