// The vocabulary of the command table: what an option, a positional argument and a command
// declare. One declaration feeds the parser (parse_options.ts), --help (help.ts), the man page
// (man.ts) and shell completion (completion/). A command cannot accept an option it does not
// document, nor document one it does not accept (test/unit/cli/options_help.test.ts).
import type { Context } from './context.js';

/** What completion offers for a value or a positional argument: a kind, or the words themselves. */
export type CompleteKind = 'file' | 'dir' | 'example' | 'command' | 'pid' | 'none' | readonly string[];

export interface OptionSpec {
  readonly type: 'boolean' | 'string';
  /** One letter: -v. */
  readonly short?: string;
  /** Only the short form exists (numastat's -m): --m is refused. */
  readonly shortOnly?: boolean;
  /** May be given several times; values are collected in order. */
  readonly multiple?: boolean;
  /** The value's name in help and the man page: NAME, SEC, FILE. Needed for string options. */
  readonly value?: string;
  /** What it does, for --help and the man page; '\n' starts a new line. */
  readonly help: string;
  /** The only values allowed: checked by the parser, offered by completion. */
  readonly choices?: readonly string[];
  readonly complete?: CompleteKind;
  /** Heading the option is listed under in --help (default "options"). */
  readonly group?: string;
}

export type OptionTable = Readonly<Record<string, OptionSpec>>;

export interface PositionalSpec {
  /** As shown in the synopsis and help: WORKLOAD, ID, OUT. */
  readonly name: string;
  readonly help?: string;
  readonly min?: number;
  /** Default 1; Infinity for "any number". */
  readonly max?: number;
  readonly choices?: readonly string[];
  readonly complete?: CompleteKind;
}

export interface HelpSection {
  readonly title: string;
  /** Lines, printed indented by two spaces. */
  readonly body: string;
}

/** A value parsed from the command line, by the option's declaration. */
type ValueOf<S extends OptionSpec> = S['type'] extends 'boolean'
  ? S['multiple'] extends true
    ? boolean[]
    : boolean
  : S['multiple'] extends true
    ? string[]
    : string;

export type Values<O extends OptionTable> = { -readonly [K in keyof O]?: ValueOf<O[K]> };

/** What a command's run() receives. */
export interface Parsed<V = Record<string, string | boolean | string[] | boolean[] | undefined>> {
  readonly values: V;
  readonly positionals: string[];
  /** -h/--help was given: main prints the help instead of running. */
  readonly help: boolean;
}

export type ParsedOptions<O extends OptionTable> = Parsed<Values<O>>;

/**
 * A command (or a subcommand such as `agent restore`). Everything but `run` is declaration:
 * main parses the arguments with `options` (or the command's own `parse`, for a grammar such
 * as numactl's) before `run` is called, so an undeclared option never reaches a command.
 */
export interface Command<P = unknown> {
  /** One line for `numakit --help` and the man page's command list. */
  readonly summary: string;
  /** Usage lines after "numakit NAME": ['[--json | --numactl]']. */
  readonly synopsis: readonly string[];
  /** What it does, a few lines. */
  readonly description: string;
  readonly options: OptionTable;
  readonly positionals?: PositionalSpec;
  /** Options that cannot be given together, by key: [['json', 'numactl']]. */
  readonly conflicts?: readonly (readonly string[])[];
  /** Subcommands (`agent restore`): the first argument selects one. */
  readonly subcommands?: Readonly<Record<string, Command>>;
  /** Extra help blocks after the options: examples, value syntax. */
  readonly sections?: readonly HelpSection[];
  /** Exit statuses as this command uses them, code -> meaning, over the common table (exit_status.ts). */
  readonly exit?: Readonly<Record<number, string>>;
  /** The command's own parser, for a grammar parseArgs cannot express; must throw UnknownOptionError. */
  parse?(args: string[]): P & { readonly help: boolean };
  run(parsed: P, ctx: Context): Promise<number>;
}

/** A top-level command's module: its summary is its line in src/cli/command_list.ts, added when it is loaded. */
export type CommandModule<P = unknown> = Omit<Command<P>, 'summary'>;

/** A command in the table: its line (command_list.ts) and how to load it, imported only when it runs. */
export interface CommandEntry {
  /** One line for `numakit --help`. */
  readonly summary: string;
  /** The command parses every argument itself (no global options after its name). */
  readonly rawArgs?: boolean;
  readonly load: () => Promise<Command>;
}

/** The command table (src/cli/commands/index.ts), as help, completion and the man page are given it. */
export interface CommandTable {
  readonly commands: Readonly<Record<string, CommandEntry>>;
  readonly overview: CommandEntry;
}
