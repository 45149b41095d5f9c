// The command table. Each command is imported only when it runs, so `numakit topo` does not
// pay for koffi, YAML or the HTTP server. A new command: its name and summary in
// src/cli/command_list.ts, its loader here, and a module exporting a default CommandModule
// (src/cli/options.ts; docs/CONTRIBUTING.md says how). Its --help, the man page, shell completion
// and the help/parser test (test/unit/cli/options_help.test.ts) follow from it. help and
// completion read this table: they get it as an argument (nothing under commands/ imports this
// file, so the table and its commands import no circle).
import { COMMAND_LIST, type CommandInfo, type CommandName, OVERVIEW_INFO } from '../command_list.js';
import type { Command, CommandEntry, CommandModule, CommandTable } from '../options.js';

const LOADERS: Record<CommandName, () => Promise<CommandModule>> = {
  topo: async () => (await import('./topo.js')).default,
  snapshot: async () => (await import('./snapshot.js')).default,
  examples: async () => (await import('./examples.js')).default,
  doctor: async () => (await import('./doctor.js')).default,
  stat: async () => (await import('./stat.js')).default,
  top: async () => (await import('./top.js')).default,
  run: async () => (await import('./run.js')).default,
  migrate: async () => (await import('./migrate.js')).default,
  apply: async () => (await import('./apply.js')).default,
  rollback: async () => (await import('./rollback.js')).default,
  journal: async () => (await import('./journal.js')).default,
  plan: async () => (await import('./plan.js')).default,
  serve: async () => (await import('./serve.js')).default,
  k8s: async () => (await import('./k8s.js')).default,
  fleet: async () => (await import('./fleet.js')).default,
  bench: async () => (await import('./bench.js')).default,
  agent: async () => (await import('./agent.js')).default,
  completion: async () => (await import('./completion.js')).completionCommand(TABLE),
  help: async () => (await import('./help.js')).helpCommand(TABLE),
};

/**
 * The entry of a command: its line from command_list.ts, and its module given that line as its
 * summary (the same object each load, so a command is known by identity).
 */
function entry(info: CommandInfo, load: () => Promise<CommandModule>): CommandEntry {
  return { ...info, load: async (): Promise<Command> => Object.assign(await load(), { summary: info.summary }) };
}

export const COMMANDS: Readonly<Record<string, CommandEntry>> = Object.fromEntries(
  (Object.keys(COMMAND_LIST) as CommandName[]).map((name) => [name, entry(COMMAND_LIST[name], LOADERS[name])]),
);

/** `numakit` with no command. */
export const OVERVIEW: CommandEntry = entry(OVERVIEW_INFO, async () => (await import('./overview.js')).default);

export const TABLE: CommandTable = { commands: COMMANDS, overview: OVERVIEW };
