// numakit completion bash|zsh|fish: the shell completion script, from the command table.
import { listExamples } from '../examples_dir.js';
import type { CommandModule, CommandTable, ParsedOptions } from '../options.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
const OPTIONS = {} as const;

/** `numakit completion`, generated from the command table it is given (src/cli/commands/index.ts). */
export function completionCommand(table: CommandTable): CommandModule<ParsedOptions<typeof OPTIONS>> {
  return {
    synopsis: ['bash | zsh | fish'],
    description: `Prints the completion script for a shell, generated from the same command table as --help:
commands, subcommands, options, and their values (profiles, workloads, example names, files).`,
    options: OPTIONS,
    positionals: { name: 'SHELL', min: 1, choices: SHELLS },
    sections: [
      {
        title: 'install',
        body: `bash: numakit completion bash > /etc/bash_completion.d/numakit   (or: source <(numakit completion bash))
zsh:  numakit completion zsh > "\${fpath[1]}/_numakit"
fish: numakit completion fish > ~/.config/fish/completions/numakit.fish
The npm package ships the three in share/ (dist/share/ in the package).`,
      },
    ],
    async run({ positionals }, ctx) {
      const { completionTable } = await import('../completion/table.js');
      const words = await completionTable(
        table,
        (await listExamples()).map((e) => e.name),
      );
      const shell = positionals[0] as (typeof SHELLS)[number];
      const render =
        shell === 'bash'
          ? (await import('../completion/bash.js')).renderBashCompletion
          : shell === 'zsh'
            ? (await import('../completion/zsh.js')).renderZshCompletion
            : (await import('../completion/fish.js')).renderFishCompletion;
      ctx.out(render(words));
      return 0;
    },
  };
}
