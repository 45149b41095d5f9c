// numakit bench (mem | ab | compare): prove what placement buys. The subcommands' declarations
// are light; each imports its measuring code (koffi, worker threads) only when it runs.
import { UsageError } from '../../model/errors.js';
import type { ParsedOptions, CommandModule } from '../options.js';
import ab from './bench_ab.js';
import compare from './bench_compare.js';
import mem from './bench_mem.js';

const bench: CommandModule<ParsedOptions<Record<string, never>>> = {
  synopsis: ['mem [OPTIONS]', 'ab [OPTIONS] -- COMMAND [ARGS...]', 'compare [OPTIONS] A.json B.json'],
  description: `Measures what NUMA placement buys on this machine. 'numakit bench SUBCOMMAND --help'
for each one's options; docs/bench.md has the JSON schemas and real results.`,
  options: {},
  subcommands: { mem, ab, compare },
  async run() {
    throw new UsageError('bench: give a subcommand: mem, ab or compare');
  },
};
export default bench;
