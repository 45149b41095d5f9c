// `numakit` with no command: a short overview of this machine and what to try next.
import { discoverForLayout } from '../../discover/topology.js';
import { failureLine } from '../../model/errors.js';
import { formatCpuList } from '../../model/cpuset.js';
import type { Topology } from '../../model/topology.js';
import { nodeLayout } from '../../model/layout.js';
import { layoutLine, renderDistances, summaryLine, describeDevice } from '../../render/topo_text.js';
import { formatBytes } from '../../render/units.js';
import type { Context } from '../context.js';
import type { ParsedOptions, CommandModule } from '../options.js';
import { OVERVIEW_SECTIONS } from '../overview_sections.js';
import { COMMAND_LIST } from '../command_list.js';
import { invokedAs } from '../invoked_as.js';

const OPTIONS = {
  json: { type: 'boolean', help: 'the same facts as one JSON object (schemaVersion 1, docs/json.md)' },
} as const;

function nodeLines(ctx: Context, t: Topology): string[] {
  const layout = layoutLine(t);
  const lines = [
    `numakit: ${ctx.root.isReal ? 'this machine' : ctx.root.label}: ${summaryLine(t)}`,
    ...(layout === null ? [] : [layout]),
    '',
  ];
  for (const n of t.nodes) {
    const devs = t.devices.filter((d) => d.node === n.id).map((d) => `${d.kind} ${d.name}`);
    lines.push(
      `  node ${n.id}: ${n.cpus.length > 0 ? `CPUs ${formatCpuList(n.cpus)}` : 'no CPUs'}, ` +
        `${formatBytes(n.memTotalBytes)} (${formatBytes(n.memFreeBytes)} free)${devs.length > 0 ? `; ${devs.join(', ')}` : ''}`,
    );
  }
  const unknown = t.devices.filter((d) => d.node === null);
  if (unknown.length > 0) lines.push(`  unknown node: ${unknown.map((d) => describeDevice(d)).join('; ')}`);
  if (t.nodes.length > 1) lines.push('', ...renderDistances(t).map((l) => `  ${l}`));
  return lines;
}

/** Doctor rules that say one visible node may not be the hardware's truth. */
const HIDDEN_NUMA = ['vm-vnuma', 'numa-off'];

/** What one node means here: nothing to place, unless the doctor says NUMA is hidden. */
function oneNodeText(doctor: unknown): string {
  const findings = (doctor as { findings?: { rule: string }[] } | undefined)?.findings ?? [];
  const hidden = findings.some((f) => HIDDEN_NUMA.includes(f.rule));
  const first = hidden
    ? 'This machine shows one NUMA node, but the hardware under it may have more (see doctor below):\n' +
      'its CPUs may not reach all memory at the same cost, and numakit cannot see or place across it.\n'
    : 'This machine has one NUMA node: every CPU reaches all memory at the same distance, so there is\nnothing to place.\n';
  const me = invokedAs();
  return (
    `\n${first}To see what numakit does on a multi-node server, try an example:\n` +
    `  ${me} examples            # the shipped machine snapshots\n  ${me} --example spark-2s topo\n`
  );
}

/** The sections' suggested command lines ("numakit stat --procs") as this process was run. */
function asRun(text: string, me: string): string {
  if (me === 'numakit') return text;
  const names = Object.keys(COMMAND_LIST).join('|');
  return text.replace(new RegExp(`(^|\\s)numakit (?=(${names})\\b)`, 'gm'), `$1${me} `);
}

function overviewJson(ctx: Context, t: Topology, sections: Record<string, unknown>): string {
  return (
    JSON.stringify(
      {
        schemaVersion: 1,
        target: ctx.root.isReal ? 'this machine' : ctx.root.label,
        summary: summaryLine(t),
        nodes: t.nodes.map((n) => ({
          id: n.id,
          cpus: n.cpus,
          memTotalBytes: n.memTotalBytes,
          memFreeBytes: n.memFreeBytes,
          devices: t.devices.filter((d) => d.node === n.id).map((d) => ({ kind: d.kind, name: d.name })),
        })),
        devicesWithoutNode: t.devices.filter((d) => d.node === null).map((d) => ({ kind: d.kind, name: d.name })),
        distances: Object.fromEntries(t.nodes.map((n) => [String(n.id), n.distances])),
        layout: nodeLayout(t),
        ...sections,
      },
      null,
      2,
    ) + '\n'
  );
}

const overview: CommandModule<ParsedOptions<typeof OPTIONS>> = {
  synopsis: ['[--json]'],
  description: `NUMA toolkit for Linux servers. With no command: an overview of this machine (nodes, CPUs,
memory and devices per node, distances, the most serious doctor findings, the processes with
the most remote memory) and what to try next.`,
  options: OPTIONS,
  async run({ values }, ctx) {
    const t = discoverForLayout(ctx.root);
    const sections: [string, { text: string; data: unknown } | null][] = [];
    const failures: { section: string; error: string }[] = [];
    for (const s of OVERVIEW_SECTIONS) {
      try {
        sections.push([s.key, await s.run(ctx, t)]);
      } catch (e) {
        // One section's failure costs only that section (like a collector of serve's scrape).
        const line = failureLine(`numakit: overview: section ${s.key}`, e, {
          stack: Boolean(process.env.NUMAKIT_DEBUG),
        });
        ctx.err(`${line}\n`);
        failures.push({ section: s.key, error: line.split('\n')[0]!.replace(/^numakit: overview: /, '') });
        sections.push([s.key, null]);
      }
    }
    if (values.json) {
      const data = Object.fromEntries(sections.map(([k, r]) => [k, r?.data ?? null]));
      ctx.out(overviewJson(ctx, t, { ...data, sectionFailures: failures }));
      return 0;
    }
    ctx.out(nodeLines(ctx, t).join('\n') + '\n');
    if (t.nodes.length === 1) ctx.out(oneNodeText(sections.find(([k]) => k === 'doctor')?.[1]?.data));
    const me = invokedAs();
    for (const [, r] of sections) if (r) ctx.out(`\n${asRun(r.text, me)}`);
    ctx.out(
      `\nnext:\n  ${me} topo          nodes, CPUs, devices, distances\n` +
        Object.entries(COMMAND_LIST)
          .filter(([n]) => !['topo', 'examples', 'snapshot', 'completion', 'help'].includes(n))
          .map(([n, e]) => `  ${me} ${n.padEnd(13)} ${e.summary}\n`)
          .join('') +
        `  ${me} --help        every command\n` +
        (me === 'numakit' ? '' : '(run from the clone; npm link puts numakit on your PATH)\n'),
    );
    return 0;
  },
};
export default overview;
