// The manual page numakit.1 (roff, man(7) macros), generated from the same command table as
// --help: every command's synopsis, description, options and sections, the global options,
// the exit statuses, the environment and files. `numakit help --man` prints it; the package
// ships it as dist/share/man/man1/numakit.1 (scripts/gen-share.mjs).
import { exitTable } from './exit_status.js';
import { GLOBAL_OPTIONS } from './globals.js';
import { optionGroups, optionLabel } from './help.js';
import type { Command, CommandTable, OptionTable } from './options.js';
import { VERSION } from './version.js';
import { DEFAULT_STATE_DIR } from '../runtime/state_dir.js';

/** Text for roff: backslashes and dashes escaped, no line starting with a control character. */
export function roff(text: string): string {
  return text
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .split('\n')
    .map((l) => (/^[.']/.test(l) ? `\\&${l}` : l))
    .join('\n');
}

/** Lines of text kept as they are (help's '\n' are line breaks). */
function lines(text: string): string[] {
  return text
    .trimEnd()
    .split('\n')
    .flatMap((l, i) => (i === 0 ? [roff(l)] : ['.br', roff(l)]));
}

/** Prose: lines of a paragraph filled by roff, blank lines start a new paragraph. */
function prose(text: string): string[] {
  return text
    .trim()
    .split(/\n\s*\n/)
    .flatMap((p, i) => [...(i > 0 ? ['.PP'] : []), roff(p.replace(/\s*\n\s*/g, ' '))]);
}

function options(table: OptionTable, withHelp: boolean): string[] {
  const out: string[] = [];
  const groups = withHelp ? optionGroups(table) : [['', Object.entries(table)] as const];
  for (const [group, opts] of groups) {
    if (withHelp && groups.length > 1) out.push(`.PP`, `\\fI${roff(group)}:\\fR`);
    for (const [key, spec] of opts) out.push('.TP', `.B ${roff(optionLabel(key, spec))}`, ...lines(spec.help));
  }
  return out;
}

function command(name: string, cmd: Command): string[] {
  const out = [`.SS ${roff(`numakit ${name}`)}`, `${roff(cmd.summary)}.`, '.PP', '.nf'];
  for (const s of cmd.synopsis) out.push(roff(`numakit ${name}${s === '' ? '' : ` ${s}`}`));
  out.push('.fi', '.PP', ...prose(cmd.description));
  if (cmd.positionals?.help !== undefined)
    out.push('.TP', `.I ${roff(cmd.positionals.name)}`, ...lines(cmd.positionals.help));
  out.push(...options(cmd.options, true));
  for (const s of cmd.sections ?? [])
    out.push('.PP', `\\fI${roff(s.title)}:\\fR`, '.RS', '.nf', ...roff(s.body.trimEnd()).split('\n'), '.fi', '.RE');
  const own = Object.entries(cmd.exit ?? {});
  if (own.length > 0) out.push('.PP', '\\fIExit status:\\fR', ...own.flatMap(([c, m]) => ['.br', roff(`${c}: ${m}`)]));
  for (const [sub, c] of Object.entries(cmd.subcommands ?? {})) out.push(...command(`${name} ${sub}`, c));
  return out;
}

export async function renderManPage(table: CommandTable): Promise<string> {
  const overview = await table.overview.load();
  const out = [
    `.TH NUMAKIT 1 "" "numakit ${VERSION}" "User Commands"`,
    '.SH NAME',
    'numakit \\- NUMA toolkit and tuning daemon for Linux servers',
    '.SH SYNOPSIS',
    '.B numakit',
    '[\\fIGLOBAL OPTIONS\\fR] [\\fICOMMAND\\fR] [\\fIOPTIONS\\fR]',
    '.SH DESCRIPTION',
    ...prose(overview.description),
    '.PP',
    'Commands:',
    ...Object.entries(table.commands).flatMap(([n, e]) => ['.TP', `.B ${roff(n)}`, roff(e.summary)]),
    '.SH GLOBAL OPTIONS',
    'They may stand before or after the command (for \\fBrun\\fR, only before it).',
    ...options(GLOBAL_OPTIONS, false),
  ];
  if (Object.keys(overview.options).length > 0)
    out.push('.SH OPTIONS', 'With no command:', ...options(overview.options, false));
  out.push('.SH COMMANDS');
  for (const [name, entry] of Object.entries(table.commands)) out.push(...command(name, await entry.load()));
  out.push(
    '.SH EXIT STATUS',
    ...exitTable({}).flatMap(([c, m]) => ['.TP', `.B ${c}`, roff(m)]),
    '.PP',
    roff(
      "numakit run exits with the command's own status once it runs, 126 when the command cannot be executed and 127 when it is not found.",
    ),
    '.SH ENVIRONMENT',
    '.TP',
    '.B NO_COLOR',
    'no colours, as \\-\\-no\\-color.',
    '.TP',
    '.B NUMAKIT_DEBUG',
    roff('=1: print the stack of an internal error.'),
    '.TP',
    '.B NUMASTAT_WIDTH',
    roff("the width stat's tables fold at, as for numastat(8)."),
    '.TP',
    '.B NUMAKIT_CACHE_DIR',
    roff(
      'where the single executable unpacks its native module (default $XDG_CACHE_HOME/numakit or ~/.cache/numakit).',
    ),
    '.SH FILES',
    '.TP',
    `.B ${DEFAULT_STATE_DIR}`,
    roff('the journal of apply and the agent (--state-dir).'),
    '.SH SEE ALSO',
    '.BR numactl (8),',
    '.BR numastat (8),',
    '.BR numad (8),',
    '.BR lstopo (1),',
    '.BR migratepages (8)',
    '',
  );
  return out.join('\n');
}
