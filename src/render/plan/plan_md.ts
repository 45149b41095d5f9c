// PLAN.md: the machine, the layout, every number with its derivation, the notes, the files and
// where they go, what to prepare, the rollout (one host first, A/B for a day, how to roll back)
// and what to check after.
import type { DecisionBase, PlanFile } from '../../policy/plan/types.js';

export interface PlanDoc {
  readonly workload: string;
  readonly intro: string;
  /** Rows of the layout table, header first. */
  readonly layout: string[][];
  /** What the kernel should say for this workload (null: leave as it is). */
  readonly want: { readonly thp: 'never' | 'madvise' | null; readonly numaBalancing: 0 | 1 | null };
  readonly prepare: string[];
  readonly enable: string[];
  readonly rollback: string[];
  readonly checks: string[];
}

function kernelSteps(d: DecisionBase, doc: PlanDoc): string[] {
  const k = d.machine.kernel;
  const out: string[] = [];
  const now = (v: string | number | null) => (v === null ? 'unknown in this snapshot' : `now ${v}`);
  if (doc.want.thp !== null && k.thp !== doc.want.thp) out.push(`Transparent huge pages: set \`${doc.want.thp}\` (${now(k.thp)}): \`echo ${doc.want.thp} > /sys/kernel/mm/transparent_hugepage/enabled\`, and persist it (tuned profile or kernel command line \`transparent_hugepage=${doc.want.thp}\`).`);
  if (doc.want.numaBalancing !== null && k.numaBalancing !== doc.want.numaBalancing) out.push(`Automatic NUMA balancing: set ${doc.want.numaBalancing} (${now(k.numaBalancing)}): \`sysctl -w kernel.numa_balancing=${doc.want.numaBalancing}\` and a line in /etc/sysctl.d/ to keep it.`);
  if (k.zoneReclaim !== null && k.zoneReclaim !== 0) out.push(`zone_reclaim_mode is ${k.zoneReclaim}: set 0 (\`sysctl -w vm.zone_reclaim_mode=0\`) so a full node spills instead of reclaiming its own page cache.`);
  return out;
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
  const install = files.map((f) => `install -D -m ${f.mode.toString(8).padStart(4, '0')} .${f.path} ${f.path}`);
  return ['## Files', '', mdTable(rows), '', 'Install them as root, from the --out directory:', '', '```sh', ...install, 'systemctl daemon-reload', '```'];
}

export function renderPlanMd(d: DecisionBase, doc: PlanDoc, files: PlanFile[]): string {
  const derivRows = [['what', 'from this machine', 'value'], ...d.derivations.map((x) => [x.what, x.formula, x.value])];
  const prep = [...kernelSteps(d, doc), ...doc.prepare];
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
    ...(d.notes.length > 0 ? ['## Notes', '', ...bullets(d.notes), ''] : []),
    ...filesSection(files),
    '',
    '## Before you start',
    '',
    ...(prep.length > 0 ? numbered(prep) : ['Nothing: the kernel settings this plan relies on are already in place.']),
    '',
    '## Rollout',
    '',
    ...numbered([
      'One host first: install on a single host of this shape and leave the others as they are.',
      ...doc.enable,
      'A/B for a day: run the same work for 24 hours on this host and on an untouched host of the same shape; compare medians of at least 3 runs, p99 latency, and numa_miss/numa_foreign from numastat.',
      'Widen a few hosts at a time only while the A/B holds; never all hosts at once.',
    ]),
    '',
    '## Roll back',
    '',
    ...numbered(doc.rollback),
    '',
    '## Check after',
    '',
    ...bullets(doc.checks),
    '',
  ];
  return lines.join('\n');
}
