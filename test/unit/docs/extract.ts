// The commands README.md and docs/*.md show: every line of a fenced block that starts with
// `numakit` (or `$ numakit`), joined across trailing backslashes, without its trailing comment;
// lines that are output (a word ending in ':' among the first three: "numakit doctor: ...") or
// a synopsis (an [optional] group or an a | b choice) are not commands. Lines that start with
// another tool (npm, kubectl, ansible-playbook ...) are commands too, of other programs.
export interface DocCommand {
  readonly file: string;
  readonly line: number;
  /** As written, without a leading "$ " and the trailing comment. */
  readonly text: string;
  readonly kind: 'numakit' | 'other' | 'synopsis';
}

/** Programs other than numakit that documents show commands of. */
export const OTHER_TOOLS = [
  'npm',
  'npx',
  'node',
  'scp',
  'ssh',
  'kubectl',
  'helm',
  'ansible-playbook',
  'ansible',
  'cd',
  'sudo',
  'curl',
  'wget',
  'systemctl',
  'make',
  'git',
  'docker',
  'podman',
  'bash',
  'sh',
  'python3',
  'promtool',
  'numactl',
  'numastat',
];

/** The text before an unquoted " #" comment. */
export function stripComment(line: string): string {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quote !== null) {
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i).trimEnd();
  }
  return line.trimEnd();
}

function kindOf(text: string): DocCommand['kind'] | null {
  const words = text.split(/\s+/);
  const first = words[0] ?? '';
  if (first === 'numakit') {
    if (words.slice(0, 3).some((w) => w.endsWith(':'))) return null;
    if (words.some((w) => w.startsWith('[')) || / \| -/.test(text)) return 'synopsis';
    return 'numakit';
  }
  // "node 0  2830.3" is bench output; "node dist/cli/bin.js", "node --import tsx ..." are commands.
  if (first === 'node' && !/^(-|.*\/|.*\.(m?js|ts)$)/.test(words[1] ?? '')) return null;
  return OTHER_TOOLS.includes(first) ? 'other' : null;
}

export function docCommands(file: string, markdown: string): DocCommand[] {
  const out: DocCommand[] = [];
  const lines = markdown.split('\n');
  let inBlock = false;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    if (/^\s*```/.test(raw)) {
      inBlock = !inBlock;
      continue;
    }
    if (!inBlock) continue;
    const start = i;
    let text = raw.trim().replace(/^\$ /, '');
    while (/\s\\$/.test(text) && i + 1 < lines.length) text = `${text.slice(0, -1).trimEnd()} ${lines[++i]!.trim()}`;
    text = stripComment(text);
    const kind = kindOf(text);
    if (kind !== null) out.push({ file, line: start + 1, text, kind });
  }
  return out;
}

/** Words of a command line as a POSIX shell splits them (quotes, backslashes; no expansion). */
export function shellWords(text: string): string[] {
  const out: string[] = [];
  let cur: string | null = null;
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quote !== null) {
      if (ch === quote) quote = null;
      else cur = (cur ?? '') + ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      cur ??= '';
    } else if (ch === '\\' && i + 1 < text.length) cur = (cur ?? '') + text[++i];
    else if (/\s/.test(ch)) {
      if (cur !== null) out.push(cur);
      cur = null;
    } else cur = (cur ?? '') + ch;
  }
  if (cur !== null) out.push(cur);
  return out;
}
