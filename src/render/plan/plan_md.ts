// PLAN.md: the machine, the layout, every number with its derivation, the notes, the files and
// where they go, what to prepare, the rollout (one host first, A/B for a day, how to roll back)
// and what to check after.
import { RESERVE_RULE } from '../../policy/plan/budget.js';
import { num } from '../../policy/plan/machine.js';
import type { Requirement } from '../../policy/plan/requirements.js';
import type { DecisionBase, PlanFile } from '../../policy/plan/types.js';
import { BACKUP_SUFFIX, fenced, installLines, restoreLines } from './blocks.js';
import { THREADS_ON } from './checks.js';

export interface PlanDoc {
  readonly workload: string;
  readonly intro: string;
  /** Rows of the layout table, header first. */
  readonly layout: string[][];
  /** A comparison with a usual recipe (rows, header first) and why they differ (spark). */
  readonly compare?: { readonly title: string; readonly rows: string[][]; readonly why: string[] };
  /** What the server needs for the memory settings the plan gives it, with the documentation that says so. */
  readonly requirements?: readonly Requirement[];
  readonly prepare: string[];
  readonly enable: string[];
  readonly rollback: string[];
  readonly checks: string[];
  /** Shell lines that start the plan's units once installed (PLAN.md's start block). */
  readonly start?: string[];
  /** Shell lines that succeed only when what the plan promised holds on the running server (check block). */
  readonly verify?: string[];
  /** Shell lines of the roll back before the files are restored: stop and disable the units. */
  readonly stop?: string[];
  /** Shell lines of the roll back after the files are restored: the server back on its packaged settings. */
  readonly restore?: string[];
}

const TO_DO = {
  ok: 'already so',
  change: 'apply sets it',
  check: 'apply sets it where needed',
  nothing: '-',
  persist: 'apply --persist writes it',
} as const;

/** The profile's kernel settings (the knowledge table's, for this machine) and the commands that set and check them. */
function tuningSection(d: DecisionBase): string[] {
  const t = d.tuning;
  const rows = [
    ['setting', `wanted (profile ${t.profile.name})`, 'now', 'to do'],
    ...t.rows.map((r) => [r.label, r.want, r.now ?? '-', TO_DO[r.status]]),
  ];
  return [
    `Kernel settings of the **${t.profile.name}** profile (placement ${t.profile.placement.detail}), from numakit's table of what each workload wants (docs/profiles.md):`,
    '',
    mdTable(rows),
    '',
    `\`${t.apply}\` shows what it would change here (add \`--yes\` to write it, journaled, and \`--persist DIR\` for the boot-time files); \`${t.doctor}\` checks them after. "now" is what the snapshot says; "-" where it does not tell.`,
  ];
}

const gib = (v: number) => `${num(v)} GiB`;

/** What the plan commits on each node against MemTotal minus the reserve. */
function memorySection(d: DecisionBase): string[] {
  const m = d.memory;
  const rows = [
    ['node', 'MemTotal', 'reserve', 'budget', 'committed', 'left', 'free now', 'policy'],
    ...m.nodes.map((n) => [
      `${n.node}`,
      gib(n.memGiB),
      gib(n.reserveGiB),
      gib(n.budgetGiB),
      n.items.length === 0
        ? m.unknown === null
          ? '0'
          : 'not known'
        : `${gib(n.committedGiB)}: ${n.items.map((c) => `${c.what} ${num(c.gib)}`).join(' + ')}`,
      n.items.length === 0 && m.unknown !== null ? '-' : gib(n.memGiB - n.committedGiB),
      n.freeGiB === null ? '-' : gib(n.freeGiB),
      n.policy,
    ]),
  ];
  const short = m.nodes.filter((n) => n.freeGiB !== null && n.freeGiB < n.committedGiB);
  return [
    '## Memory per node',
    '',
    `Each node keeps a reserve for the page cache, the kernel and everything else on the host: ${RESERVE_RULE}. What the plan commits on a node stays within its budget, MemTotal minus the reserve: a process bound to a node that fills has no fallback node, the kernel OOM-kills it.`,
    '',
    mdTable(rows),
    ...(m.unknown === null ? [] : ['', `${m.unknown}.`]),
    ...short.map(
      (n) =>
        `\nNode ${n.node} has ${gib(n.freeGiB!)} free now, less than the ${gib(n.committedGiB)} the plan commits there: stop what uses it (or wait for its page cache to be reclaimed) before starting, or the start will fail or reclaim under pressure.`,
    ),
  ];
}

function requirementsSection(doc: PlanDoc): string[] {
  const r = doc.requirements ?? [];
  if (r.length === 0) return [];
  return [
    '## What the server needs, and where it is documented',
    '',
    mdTable([['setting', 'why', 'source'], ...r.map((x) => [x.setting, x.why, x.source])]),
    '',
  ];
}

function compareSection(doc: PlanDoc): string[] {
  if (doc.compare === undefined) return [];
  return [`## ${doc.compare.title}`, '', mdTable(doc.compare.rows), '', ...doc.compare.why.flatMap((p) => [p, ''])];
}

/** A Markdown pipe table; first row is the header. '|' in cells is escaped. */
export function mdTable(rows: string[][]): string {
  const cell = (c: string) => c.replace(/\|/g, '\\|');
  const line = (r: string[]) => `| ${r.map(cell).join(' | ')} |`;
  return [line(rows[0]!), `|${rows[0]!.map(() => '---').join('|')}|`, ...rows.slice(1).map(line)].join('\n');
}

const numbered = (items: string[]) => items.map((s, i) => `${i + 1}. ${s}`);
const bullets = (items: string[]) => items.map((s) => `- ${s}`);

function filesSection(files: PlanFile[]): string[] {
  const rows = [['file', 'mode', 'what'], ...files.map((f) => [f.path, f.mode.toString(8).padStart(4, '0'), f.about])];
  return [
    '## Files',
    '',
    mdTable(rows),
    '',
    `Install them as root, from the --out directory (a file the host already has is kept as FILE${BACKUP_SUFFIX}; "Roll back" puts it back). Each \`\`\`sh numakit:NAME block of this file runs as it stands: \`sed -n '/^\`\`\`sh numakit:install$/,/^\`\`\`$/{//!p}' PLAN.md | bash -e\`.`,
    '',
    ...fenced('install', installLines(files)),
  ];
}

function rolloutSection(d: DecisionBase, doc: PlanDoc): string[] {
  const start = doc.start ?? [];
  return [
    '## Rollout',
    '',
    ...numbered([
      'One host first: install on a single host of this shape and leave the others as they are.',
      ...(start.length > 0
        ? [`After the steps of "Before you start", start it with the start block below; then: ${doc.enable.join(' ')}`]
        : doc.enable),
      `A/B for a day: run the same work for 24 hours on this host and on an untouched host of the same shape; compare medians of at least 3 runs${d.machine.facts.nodes > 1 ? ', p99 latency, and numa_miss/numa_foreign from numastat' : ' and p99 latency'}.`,
      'Widen a few hosts at a time only while the A/B holds; never all hosts at once.',
    ]),
    ...(start.length > 0 ? ['', ...fenced('start', start)] : []),
  ];
}

function rollbackSection(doc: PlanDoc, files: PlanFile[]): string[] {
  return [
    '## Roll back',
    '',
    "The units stopped, the files removed (or the host's own put back from FILE.numakit-orig):",
    '',
    ...fenced('rollback', [...(doc.stop ?? []), ...restoreLines(files), ...(doc.restore ?? [])]),
    '',
    ...numbered([
      ...doc.rollback,
      'Kernel settings: `numakit rollback` undoes the change set `numakit apply --yes` recorded (`numakit journal` lists them).',
    ]),
  ];
}

function checkSection(doc: PlanDoc): string[] {
  const verify = doc.verify ?? [];
  const threads = verify.some((l) => l.startsWith('threads_on ')) ? THREADS_ON : [];
  return [
    '## Check after',
    '',
    ...(verify.length > 0
      ? [
          'Each check fails when the running server is not as planned:',
          '',
          ...fenced('check', [...threads, ...verify]),
          '',
          'Then:',
          '',
        ]
      : []),
    ...bullets(doc.checks),
  ];
}

export function renderPlanMd(d: DecisionBase, doc: PlanDoc, files: PlanFile[]): string {
  const derivRows = [['what', 'from this machine', 'value'], ...d.derivations.map((x) => [x.what, x.formula, x.value])];
  const prep = doc.prepare;
  const lines = [
    `# numakit plan ${doc.workload}`,
    '',
    `Machine: ${d.machine.label}: ${d.machine.summary}.`,
    '',
    doc.intro,
    '',
    '## Layout',
    '',
    mdTable(doc.layout),
    '',
    '## Numbers and where they come from',
    '',
    mdTable(derivRows),
    '',
    ...memorySection(d),
    '',
    ...requirementsSection(doc),
    ...compareSection(doc),
    ...(d.notes.length > 0 ? ['## Notes', '', ...bullets(d.notes), ''] : []),
    ...filesSection(files),
    '',
    '## Before you start',
    '',
    ...tuningSection(d),
    '',
    ...(prep.length > 0 ? ['Then:', '', ...numbered(prep)] : ['Nothing else to prepare.']),
    '',
    ...rolloutSection(d, doc),
    '',
    ...rollbackSection(doc, files),
    '',
    ...checkSection(doc),
    '',
  ];
  return lines.join('\n');
}
