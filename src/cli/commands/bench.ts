// numakit bench (mem | ab | compare): prove what placement buys. Each subcommand's module is
// imported only when it runs; koffi and the kernel workers load only inside bench mem/ab.
import { UsageError } from '../../model/errors.js';
import type { Command } from '../context.js';

const usage = `usage: numakit bench mem [options]            node x node bandwidth and latency matrices
       numakit bench ab [options] -- COMMAND...  A/B runs of a workload under placements
       numakit bench compare A.json B.json       before/after: two saved results side by side

numakit bench SUBCOMMAND --help for its options. See docs/bench.md.
`;

const SUBCOMMANDS: Record<string, () => Promise<{ usage: string; run: (args: string[], ctx: Parameters<Command['run']>[1]) => Promise<number> }>> = {
  mem: async () => {
    const m = await import('./bench_mem.js');
    return { usage: m.memUsage, run: m.runBenchMem };
  },
};

const bench: Command = {
  summary: 'prove what placement buys: memory matrices (MLC class), A/B runs of a workload, reports',
  usage,
  async run(args, ctx) {
    const [sub, ...rest] = args;
    if (sub === undefined || sub === '--help' || sub === '-h') {
      ctx.out(usage);
      return sub === undefined ? 2 : 0;
    }
    const load = SUBCOMMANDS[sub];
    if (load === undefined) throw new UsageError(`bench: unknown subcommand '${sub}' (mem, ab, compare)`);
    const cmd = await load();
    if (rest.includes('--help') || rest.includes('-h')) {
      const dashdash = rest.indexOf('--');
      const help = rest.findIndex((a) => a === '--help' || a === '-h');
      if (dashdash < 0 || help < dashdash) {
        ctx.out(cmd.usage);
        return 0;
      }
    }
    return cmd.run(rest, ctx);
  },
};
export default bench;
