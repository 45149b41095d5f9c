// numakit help [COMMAND [SUBCOMMAND]] | numakit help --man: a command's --help, or the manual page.
import { UsageError } from '../../model/errors.js';
import { renderHelp } from '../help.js';
import type { CommandModule, CommandTable, ParsedOptions } from '../options.js';
import { resolveSubcommand } from '../parse_options.js';

const OPTIONS = {
  man: { type: 'boolean', help: 'print the whole manual page (roff, numakit.1): man -l <(numakit help --man)' },
} as const;

/** `numakit help`, reading the command table it is given (src/cli/commands/index.ts). */
export function helpCommand(table: CommandTable): CommandModule<ParsedOptions<typeof OPTIONS>> {
  return {
    synopsis: ['[COMMAND [SUBCOMMAND]]', '--man'],
    description:
      "Prints a command's help (the same as numakit COMMAND --help), or with no command the list\nof commands (numakit --help).",
    options: OPTIONS,
    positionals: { name: 'COMMAND', max: 2, choices: undefined },
    async run({ values, positionals }, ctx) {
      if (values.man) {
        if (positionals.length > 0) throw new UsageError('help: --man prints the whole manual; give no command');
        ctx.out(await (await import('../man.js')).renderManPage(table));
        return 0;
      }
      const [name, ...sub] = positionals;
      if (name === undefined) {
        ctx.out(await (await import('../help_main.js')).renderMainHelp(table));
        return 0;
      }
      const entry = table.commands[name];
      if (entry === undefined) throw new UsageError(`help: unknown command '${name}'; see 'numakit --help'`);
      const r = resolveSubcommand(await entry.load(), sub, name);
      if (r.args.length > 0) throw new UsageError(`help: '${name}' has no subcommand '${r.args[0]}'`);
      ctx.out(renderHelp(r.name, r.cmd));
      return 0;
    },
  };
}
