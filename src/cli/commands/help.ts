// numakit help [COMMAND [SUBCOMMAND]] | numakit help --man: a command's --help, or the manual page.
import { UsageError } from '../../model/errors.js';
import { renderHelp } from '../help.js';
import type { Command, ParsedOptions } from '../options.js';
import { resolveSubcommand } from '../parse_options.js';
import { COMMANDS } from './index.js';

const OPTIONS = {
  man: { type: 'boolean', help: 'print the whole manual page (roff, numakit.1): man -l <(numakit help --man)' },
} as const;

const help: Command<ParsedOptions<typeof OPTIONS>> = {
  summary: 'help on a command, or the whole manual page (--man)',
  synopsis: ['[COMMAND [SUBCOMMAND]]', '--man'],
  description:
    "Prints a command's help (the same as numakit COMMAND --help), or with no command the list\nof commands (numakit --help).",
  options: OPTIONS,
  positionals: { name: 'COMMAND', max: 2, choices: undefined },
  async run({ values, positionals }, ctx) {
    if (values.man) {
      if (positionals.length > 0) throw new UsageError('help: --man prints the whole manual; give no command');
      ctx.out(await (await import('../man.js')).renderManPage());
      return 0;
    }
    const [name, ...sub] = positionals;
    if (name === undefined) {
      ctx.out(await (await import('../help_main.js')).renderMainHelp());
      return 0;
    }
    const entry = COMMANDS[name];
    if (entry === undefined) throw new UsageError(`help: unknown command '${name}'; see 'numakit --help'`);
    const r = resolveSubcommand(await entry.load(), sub, name);
    if (r.args.length > 0) throw new UsageError(`help: '${name}' has no subcommand '${r.args[0]}'`);
    ctx.out(renderHelp(r.name, r.cmd));
    return 0;
  },
};
export default help;
