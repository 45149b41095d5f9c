// numakit examples: the shipped example machines.
import type { ParsedOptions, CommandModule } from '../options.js';
import { listExamples } from '../examples_dir.js';

const OPTIONS = {
  json: { type: 'boolean', help: 'the list as JSON (schemaVersion 1, docs/json.md): each manifest' },
} as const;

const examples: CommandModule<ParsedOptions<typeof OPTIONS>> = {
  synopsis: ['[--json]'],
  description: `Lists the example machine snapshots shipped with numakit. Every command reads
one with --example NAME, e.g. 'numakit --example spark-2s topo'.`,
  options: OPTIONS,
  async run({ values }, ctx) {
    const list = await listExamples();
    if (values.json) {
      ctx.out(
        `${JSON.stringify({ schemaVersion: 1, examples: list.map((e) => ({ name: e.name, synthetic: e.synthetic, description: e.description, source: e.source })) }, null, 2)}\n`,
      );
      return 0;
    }
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
