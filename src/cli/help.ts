// --help text, generated from a command's declaration (options.ts): usage lines, description,
// subcommands, options by group, extra sections, the global options and the exit statuses.
// Pure: the same declaration also gives the man page (man.ts) and completion (completion/).
import { exitTable } from './exit_status.js';
import type { Command, CommandModule, OptionSpec, OptionTable } from './options.js';
import { HELP_OPTION } from './parse_options.js';

/** "-v, --verbose", "--profile NAME", "-m", "-p PID|PATTERN". */
export function optionLabel(key: string, spec: OptionSpec): string {
  const v = spec.value ?? 'VALUE';
  const value = spec.type === 'boolean' ? '' : v.startsWith('[') ? v : ` ${v}`;
  if (spec.shortOnly === true) return `-${spec.short}${value}`;
  return `${spec.short !== undefined ? `-${spec.short}, ` : ''}--${key}${value}`;
}

/** Aligned "label  text" lines; text lines after the first are indented to the text column. */
export function renderDefinitions(items: readonly [string, string][], width?: number, indent = '  '): string[] {
  const w = width ?? labelWidth(items.map(([l]) => l));
  const lines: string[] = [];
  for (const [label, text] of items) {
    const [first = '', ...rest] = text.split('\n');
    if (label.length > w) lines.push(`${indent}${label}`, `${indent}${' '.repeat(w + 2)}${first}`);
    else lines.push(`${indent}${label.padEnd(w)}  ${first}`.trimEnd());
    for (const r of rest) lines.push(`${indent}${' '.repeat(w + 2)}${r}`.trimEnd());
  }
  return lines;
}

/** The text column: after the longest label, at most 24 wide (longer labels get a line of their own). */
export function labelWidth(labels: readonly string[]): number {
  return Math.min(24, Math.max(0, ...labels.map((l) => l.length)));
}

/** Options by group, in the order they are declared; -h/--help last under "options" (or the last group). */
export function optionGroups(options: OptionTable): [string, [string, OptionSpec][]][] {
  const groups = new Map<string, [string, OptionSpec][]>();
  for (const [key, spec] of Object.entries(options)) {
    const g = spec.group ?? 'options';
    groups.set(g, [...(groups.get(g) ?? []), [key, spec]]);
  }
  const home = groups.has('options') || groups.size === 0 ? 'options' : [...groups.keys()].at(-1)!;
  groups.set(home, [...(groups.get(home) ?? []), ['help', HELP_OPTION]]);
  return [...groups];
}

export const GLOBALS_LINE =
  'global options (before or after the command): --root DIR|FILE.tar.gz, --example NAME, --no-color; see numakit --help';

export function renderExitStatus(cmd: Pick<Command, 'exit'>): string[] {
  return ['exit status:', ...renderDefinitions(exitTable(cmd).map(([c, m]) => [String(c), m]))];
}

/** The full --help of `numakit NAME` (NAME may be "agent restore"). */
export function renderHelp(name: string, cmd: CommandModule): string {
  const prog = `numakit ${name}`.trimEnd();
  const out = cmd.synopsis.map((s, i) => `${i === 0 ? 'usage: ' : '       '}${prog}${s === '' ? '' : ` ${s}`}`);
  out.push('', cmd.description.trimEnd());
  if (cmd.subcommands !== undefined) {
    out.push(
      '',
      'commands:',
      ...renderDefinitions(Object.entries(cmd.subcommands).map(([n, c]) => [n, `${c.summary} (${prog} ${n} --help)`])),
    );
  }
  if (cmd.positionals?.help !== undefined)
    out.push('', 'arguments:', ...renderDefinitions([[cmd.positionals.name, cmd.positionals.help]]));
  const groups = optionGroups(cmd.options);
  const w = labelWidth(groups.flatMap(([, opts]) => opts.map(([k, s]) => optionLabel(k, s))));
  for (const [group, opts] of groups)
    out.push(
      '',
      `${group}:`,
      ...renderDefinitions(
        opts.map(([k, s]) => [optionLabel(k, s), s.help]),
        w,
      ),
    );
  for (const s of cmd.sections ?? [])
    out.push(
      '',
      `${s.title}:`,
      ...s.body
        .trimEnd()
        .split('\n')
        .map((l) => `  ${l}`.trimEnd()),
    );
  out.push('', GLOBALS_LINE, '', ...renderExitStatus(cmd));
  return out.join('\n') + '\n';
}
