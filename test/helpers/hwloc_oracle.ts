// The hwloc oracle (docs/topo.md, "Equal to hwloc"): for a sysfs tree, what hwloc's own tools say
// of it and what they say of numakit's `topo --xml` for it. Compared: the XML in its canonical
// form (hwloc_canon.ts), lstopo's console drawing with and without I/O, and hwloc-calc's answers.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { canonicalHwlocXml, firstDifference } from './hwloc_canon.js';

export interface OracleResult {
  /** Check name -> first difference, or null when equal. */
  readonly checks: Record<string, string | null>;
}

function run(cmd: string, args: readonly string[]): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  // A failure is an answer too (hwloc-calc on a location the machine lacks): compared as such.
  return r.status === 0
    ? r.stdout
    : `exit ${r.status}: ${r.stderr
        .split('\n')
        .filter((l) => !/discovery component/.test(l))
        .join(' ')}`;
}

const lines = (s: string) => s.split('\n');

/** hwloc-calc questions asked of both inputs; `numa:LAST` is the last NUMA node. */
const CALC: readonly (readonly string[])[] = [
  ['-N', 'pu', 'all'],
  ['-N', 'core', 'all'],
  ['-N', 'numa', 'all'],
  ['-N', 'package', 'all'],
  ['-N', 'l3', 'all'],
  ['-N', 'group', 'all'],
  ['--physical-output', '--intersect', 'pu', 'numa:LAST'],
  ['-I', 'core', 'numa:0'],
  ['--nodeset', 'package:0'],
  ['--nodeset', 'pu:0'],
  ['numa:LAST'],
  ['--physical-output', '-I', 'numa', 'core:0'],
];

/**
 * Compares hwloc's view of `tree` with its view of `xml` (numakit's XML for it, written to
 * `xmlFile`). lstopo-no-graphics and hwloc-calc must be installed.
 */
export function compareWithHwloc(tree: string, xml: string, xmlFile: string): OracleResult {
  writeFileSync(xmlFile, xml);
  const checks: Record<string, string | null> = {};
  const theirs = run('lstopo-no-graphics', ['--input', tree, '--of', 'xml']);
  checks['xml'] = theirs.startsWith('exit ')
    ? `hwloc cannot read the tree: ${theirs}`
    : firstDifference(canonicalHwlocXml(theirs), canonicalHwlocXml(xml));
  for (const [name, extra] of [
    ['console', []],
    ['console --no-io', ['--no-io']],
  ] as const)
    checks[name] = firstDifference(
      lines(run('lstopo-no-graphics', ['--input', tree, '--of', 'console', ...extra])),
      lines(run('lstopo-no-graphics', ['--input', xmlFile, '--of', 'console', ...extra])),
    );
  const numas = Number(run('hwloc-calc', ['--input', tree, '-N', 'numa', 'all']).trim());
  const last = Number.isInteger(numas) && numas > 0 ? String(numas - 1) : '0';
  for (const q of CALC) {
    const args = q.map((a) => a.replace('LAST', last));
    checks[`hwloc-calc ${args.join(' ')}`] = firstDifference(
      lines(run('hwloc-calc', ['--input', tree, ...args])),
      lines(run('hwloc-calc', ['--input', xmlFile, ...args])),
    );
  }
  return { checks };
}

/** The failing checks of a result, one line each with its first difference indented. */
export function describeDifferences(r: OracleResult): string {
  return Object.entries(r.checks)
    .filter(([, d]) => d !== null)
    .map(([k, d]) => `${k}: ${d!.replace(/\n/g, '\n    ')}`)
    .join('\n');
}
