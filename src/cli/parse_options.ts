// Parses a command's arguments by its declaration (options.ts) with node:util parseArgs,
// strictly: an undeclared option, a missing or unexpected value, a value outside `choices`,
// too many or too few positional arguments and options declared to conflict are each a
// UsageError (exit 2) with one line naming the option and the command.
import { parseArgs } from 'node:util';
import { UnknownOptionError, UsageError } from '../model/errors.js';
import type { Command, CommandModule, OptionSpec, OptionTable, Parsed } from './options.js';

/** Every command has -h/--help (main prints the help instead of running it). */
export const HELP_OPTION: OptionSpec = { type: 'boolean', short: 'h', help: 'print this help and exit' };

const prefix = (who: string) => (who === '' ? '' : `${who}: `);

export type Declaration = Pick<Command, 'options' | 'positionals' | 'conflicts' | 'subcommands'>;

/** The form an option is written in, for messages: --json, -m. */
export function flagOf(key: string, spec: OptionSpec): string {
  return spec.shortOnly === true && spec.short !== undefined ? `-${spec.short}` : `--${key}`;
}

function translate(e: unknown, who: string, options: OptionTable): never {
  const err = e as NodeJS.ErrnoException;
  const quoted = /'(-{1,2}[^' ]+)/.exec(err.message ?? '')?.[1];
  if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw new UnknownOptionError(who, quoted ?? '?');
  if (err.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && quoted !== undefined) {
    const key = Object.keys(options).find((k) => `--${k}` === quoted || `-${options[k]!.short}` === quoted);
    const spec = key === undefined ? undefined : options[key];
    if (/does not take an argument/.test(err.message)) throw new UsageError(`${prefix(who)}${quoted} takes no value`);
    if (/ambiguous/.test(err.message))
      throw new UsageError(`${prefix(who)}${quoted} needs a value; one starting with '-' is written ${quoted}=VALUE`);
    throw new UsageError(`${prefix(who)}${quoted} needs a value${spec?.value ? ` (${spec.value})` : ''}`);
  }
  throw e;
}

function checkChoices(values: Record<string, unknown>, options: OptionTable, who: string): void {
  for (const [key, v] of Object.entries(values)) {
    const spec = options[key];
    if (spec?.choices === undefined || v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) {
      if (!spec.choices.includes(String(one)))
        throw new UsageError(`${prefix(who)}${flagOf(key, spec)} ${one}: expected one of ${spec.choices.join(', ')}`);
    }
  }
}

function checkPositionals(decl: Declaration, positionals: string[], who: string): void {
  const p = decl.positionals;
  const max = p === undefined ? 0 : (p.max ?? 1);
  if (positionals.length > max && p === undefined && decl.subcommands !== undefined) {
    throw new UsageError(
      `${prefix(who)}unexpected argument '${positionals[0]}' (did you mean ${Object.keys(decl.subcommands)
        .map((s) => `'numakit ${who} ${s}'`)
        .join(' or ')}?)`,
    );
  }
  if (positionals.length > max) {
    throw new UsageError(
      `${prefix(who)}unexpected argument '${positionals[max]}'${p === undefined ? '' : ` (at most ${max} ${p.name})`}`,
    );
  }
  if (p !== undefined && positionals.length < (p.min ?? 0))
    throw new UsageError(`${prefix(who)}missing ${p.name}; see 'numakit ${who} --help'`);
  for (const v of p?.choices === undefined ? [] : positionals) {
    if (!p!.choices!.includes(v))
      throw new UsageError(`${prefix(who)}${p!.name} '${v}': expected one of ${p!.choices!.join(', ')}`);
  }
}

function checkConflicts(decl: Declaration, values: Record<string, unknown>, who: string): void {
  for (const group of decl.conflicts ?? []) {
    const given = group.filter((k) => values[k] !== undefined && values[k] !== false);
    if (given.length > 1) {
      const flags = given.map((k) => flagOf(k, decl.options[k]!));
      throw new UsageError(
        `${prefix(who)}${flags.slice(0, -1).join(', ')} and ${flags.at(-1)} cannot be used together`,
      );
    }
  }
}

/** Parses `args` by the declaration; `who` names the command in messages ('' for the overview). */
export function parseOptions(decl: Declaration, args: string[], who: string): Parsed {
  const options: OptionTable = { ...decl.options, help: HELP_OPTION };
  // A short-only option (numastat's -m) has a key for parseArgs, which would accept --m too.
  for (const a of args.slice(0, args.includes('--') ? args.indexOf('--') : args.length)) {
    const long = /^--([^=]+)/.exec(a)?.[1];
    if (long !== undefined && options[long]?.shortOnly === true) throw new UnknownOptionError(who, `--${long}`);
  }
  let r: ReturnType<typeof parseArgs>;
  try {
    r = parseArgs({
      args,
      options: options as NonNullable<Parameters<typeof parseArgs>[0]>['options'],
      strict: true,
      allowPositionals: true,
    });
  } catch (e) {
    translate(e, who, options);
  }
  const values = r.values as Record<string, string | boolean | string[] | boolean[] | undefined>;
  const help = values['help'] === true;
  delete values['help'];
  if (!help) {
    checkChoices(values, options, who);
    checkPositionals(decl, r.positionals, who);
    checkConflicts(decl, values, who);
  }
  return { values, positionals: r.positionals, help };
}

/** Follows subcommands (`agent restore`): the command that runs, its arguments and its full name. */
export function resolveSubcommand(
  cmd: CommandModule,
  args: string[],
  name: string,
): { cmd: CommandModule; args: string[]; name: string } {
  const sub = args[0] === undefined ? undefined : cmd.subcommands?.[args[0]];
  if (sub === undefined) return { cmd, args, name };
  return resolveSubcommand(sub, args.slice(1), `${name} ${args[0]}`);
}

/** The command's own parser when it has one, else the declaration's. */
export function parseCommandArgs<P>(
  cmd: CommandModule<P>,
  args: string[],
  who: string,
): P & { readonly help: boolean } {
  return cmd.parse ? cmd.parse(args) : (parseOptions(cmd, args, who) as unknown as P & { readonly help: boolean });
}
