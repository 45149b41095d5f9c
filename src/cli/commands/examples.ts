// numakit examples: the shipped example machines.
import type { Command, ParsedOptions } from '../options.js';
import { listExamples } from '../examples_dir.js';

const OPTIONS = {} as const;

const examples: Command<ParsedOptions<typeof OPTIONS>> = {
  summary: 'list the example machines shipped with numakit (use with --example)',
  synopsis: [''],
  description: `Lists the example machine snapshots shipped with numakit. Every command reads
one with --example NAME, e.g. 'numakit --example spark-2s topo'.`,
  options: OPTIONS,
  async run(_parsed, ctx) {
    const list = await listExamples();
    if (list.length === 0) {
      ctx.out('no examples installed\n');
      return 0;
    }
    const w = Math.max(...list.map((e) => e.name.length));
    for (const e of list) {
      ctx.out(`${e.name.padEnd(w)}  ${e.synthetic ? '[synthetic] ' : '[captured]  '}${e.description}\n`);
    }
    return 0;
  },
};
export default examples;
