// `numakit --help`: the commands (from the command table's summaries, without loading them),
// the overview's own options, the global options and the exit statuses.
import { GLOBAL_OPTIONS } from './globals.js';
import { optionLabel, renderDefinitions, renderExitStatus } from './help.js';
import type { CommandTable } from './options.js';

export async function renderMainHelp(table: CommandTable): Promise<string> {
  const overview = await table.overview.load();
  const options = Object.entries(overview.options).map(([k, s]) => [optionLabel(k, s), s.help] as [string, string]);
  return [
    'usage: numakit [GLOBAL OPTIONS] [COMMAND] [OPTIONS]',
    '',
    overview.description.trimEnd(),
    '',
    'commands:',
    ...renderDefinitions(Object.entries(table.commands).map(([n, e]) => [n, e.summary])),
    '',
    ...(options.length > 0 ? ['options (with no command):', ...renderDefinitions(options), ''] : []),
    'global options (before or after the command):',
    ...renderDefinitions(Object.entries(GLOBAL_OPTIONS).map(([k, s]) => [optionLabel(k, s), s.help])),
    '',
    "numakit COMMAND --help (or numakit help COMMAND) shows a command's options.",
    '',
    ...renderExitStatus(overview),
    '',
  ].join('\n');
}
