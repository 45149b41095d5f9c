// What the completion scripts are generated from: the command table with every command loaded,
// flattened to words (command paths, option forms, values). Pure once loaded.
// Loading every command costs 80-95 ms (each command's modules and what they require: zod,
// yaml ...), so the build writes the flattened commands to commands.json next to this module
// (scripts/gen-share.mjs) and `numakit completion` reads that; without it (running from src/,
// a single executable) the commands are loaded. A test checks the file against the loaded table.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sea } from '../../runtime/is_sea.js';
import { GLOBAL_OPTIONS } from '../globals.js';
import type { Command, CommandTable, CompleteKind, OptionSpec } from '../options.js';
import { HELP_OPTION } from '../parse_options.js';

export interface CompletionOption {
  readonly long?: string;
  readonly short?: string;
  /** First line of its help, for zsh and fish descriptions. */
  readonly description: string;
  readonly takesValue: boolean;
  readonly multiple: boolean;
  readonly values: CompleteKind;
}

export interface CompletionCommand {
  /** "agent restore" */
  readonly path: string;
  readonly summary: string;
  readonly options: readonly CompletionOption[];
  readonly subcommands: readonly string[];
  readonly positional: CompleteKind | null;
}

export interface CompletionTable {
  readonly globals: readonly CompletionOption[];
  readonly commands: readonly CompletionCommand[];
  readonly examples: readonly string[];
}

function option(key: string, spec: OptionSpec): CompletionOption {
  return {
    ...(spec.shortOnly === true ? {} : { long: key }),
    ...(spec.short !== undefined ? { short: spec.short } : {}),
    description: spec.help.split('\n')[0]!,
    takesValue: spec.type === 'string' && spec.value?.startsWith('[') !== true,
    multiple: spec.multiple === true,
    values: spec.choices ?? spec.complete ?? 'none',
  };
}

function flatten(path: string, cmd: Command, out: CompletionCommand[]): void {
  out.push({
    path,
    summary: cmd.summary,
    options: [...Object.entries(cmd.options).map(([k, s]) => option(k, s)), option('help', HELP_OPTION)],
    subcommands: Object.keys(cmd.subcommands ?? {}),
    positional: cmd.positionals === undefined ? null : (cmd.positionals.choices ?? cmd.positionals.complete ?? 'none'),
  });
  for (const [name, sub] of Object.entries(cmd.subcommands ?? {})) flatten(`${path} ${name}`, sub, out);
}

/** The built table's file: dist/cli/completion/commands.json (absent under src/). */
export const PREBUILT = fileURLToPath(new URL('./commands.json', import.meta.url));

/** Every command and subcommand of the table, flattened: loads every command module. */
export async function loadCompletionCommands(table: CommandTable): Promise<Omit<CompletionTable, 'examples'>> {
  const commands: CompletionCommand[] = [];
  for (const [name, entry] of Object.entries(table.commands)) flatten(name, await entry.load(), commands);
  return { globals: Object.entries(GLOBAL_OPTIONS).map(([k, s]) => option(k, s)), commands };
}

/** The build's flattened commands; null when there is none or it cannot be read. */
function prebuilt(): Omit<CompletionTable, 'examples'> | null {
  // In a single executable import.meta.url is the executable's: nothing of ours is next to it.
  if (sea() !== null || !existsSync(PREBUILT)) return null;
  try {
    const t = JSON.parse(readFileSync(PREBUILT, 'utf8')) as Omit<CompletionTable, 'examples'>;
    return Array.isArray(t.globals) && Array.isArray(t.commands) ? t : null;
  } catch {
    return null;
  }
}

export async function completionTable(table: CommandTable, examples: readonly string[]): Promise<CompletionTable> {
  return { ...(prebuilt() ?? (await loadCompletionCommands(table))), examples };
}

/** The words a value kind stands for, when it is a fixed list. */
export function valueWords(kind: CompleteKind, examples: readonly string[]): readonly string[] | null {
  if (typeof kind !== 'string') return kind;
  return kind === 'example' ? examples : null;
}
