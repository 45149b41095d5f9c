// `numakit` with no command: a short overview of this machine and what to try next.
import { discoverTopology } from '../../discover/topology.js';
import { formatCpuList } from '../../model/cpuset.js';
import { renderDistances, summaryLine, describeDevice } from '../../render/topo_text.js';
import { formatBytes } from '../../render/units.js';
import type { Context } from '../context.js';
import type { Command, ParsedOptions } from '../options.js';
import { OVERVIEW_SECTIONS } from '../overview_sections.js';

function nodeLines(ctx: Context): { lines: string[]; nodes: number } {
  const t = discoverTopology(ctx.root);
  const lines = [`numakit: ${ctx.root.isReal ? 'this machine' : ctx.root.label}: ${summaryLine(t)}`, ''];
  for (const n of t.nodes) {
    const devs = t.devices.filter((d) => d.node === n.id).map((d) => `${d.kind} ${d.name}`);
    lines.push(
      `  node ${n.id}: ${n.cpus.length > 0 ? `CPUs ${formatCpuList(n.cpus)}` : 'no CPUs'}, ` +
        `${formatBytes(n.memTotalBytes)} (${formatBytes(n.memFreeBytes)} free)${devs.length > 0 ? `; ${devs.join(', ')}` : ''}`,
    );
  }
  const unknown = t.devices.filter((d) => d.node === null);
  if (unknown.length > 0) lines.push(`  node unknown: ${unknown.map((d) => describeDevice(d)).join('; ')}`);
  if (t.nodes.length > 1) lines.push('', ...renderDistances(t).map((l) => `  ${l}`));
  return { lines, nodes: t.nodes.length };
}

const OPTIONS = {} as const;

const overview: Command<ParsedOptions<typeof OPTIONS>> = {
  summary: 'an overview of this machine and what to try next',
  synopsis: [''],
  description: `NUMA toolkit for Linux servers. With no command: an overview of this machine (nodes, CPUs,
memory and devices per node, distances, the most serious doctor findings, the processes with
the most remote memory) and what to try next.`,
  options: OPTIONS,
  async run(_parsed, ctx) {
    const { lines, nodes } = nodeLines(ctx);
    ctx.out(lines.join('\n') + '\n');
    if (nodes === 1) {
      ctx.out(
        '\nThis machine has one NUMA node: every CPU reaches all memory at the same distance, so there is\n' +
          'nothing to place. To see what numakit does on a multi-node server, try an example:\n' +
          "  numakit examples            # the shipped machine snapshots\n  numakit --example spark-2s topo\n",
      );
    }
    for (const section of OVERVIEW_SECTIONS) {
      const text = await section(ctx);
      if (text) ctx.out(`\n${text}`);
    }
    ctx.out(
      '\nnext:\n  numakit topo          nodes, CPUs, devices, distances\n' +
        Object.entries((await import('./index.js')).COMMANDS)
          .filter(([n]) => n !== 'topo' && n !== 'examples' && n !== 'snapshot')
          .map(([n, e]) => `  numakit ${n.padEnd(13)} ${e.summary}\n`)
          .join('') +
        '  numakit --help        every command\n',
    );
    return 0;
  },
};
export default overview;
