// docs/profiles.md shows the knowledge table itself: the part between the "generated" markers
// is rendered here from src/policy/knowledge/ and must match (UPDATE_GOLDEN=1 rewrites it).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { formatEntry, SETTING_LABELS } from '../../../src/policy/knowledge/labels.js';
import { ALIASES } from '../../../src/policy/knowledge/profiles.js';
import { SOURCES } from '../../../src/policy/knowledge/sources.js';
import { TABLE } from '../../../src/policy/knowledge/table.js';
import {
  CLASSES,
  isByPlacement,
  SETTINGS,
  type Advice,
  type Entry,
  type SettingKey,
} from '../../../src/policy/knowledge/types.js';
import { REPO_DIR } from '../../helpers/cli.js';

const DOC = join(REPO_DIR, 'docs/profiles.md');
const BEGIN =
  '<!-- generated from src/policy/knowledge (test/unit/knowledge/profiles_doc.test.ts): do not edit by hand -->';
const END = '<!-- end of generated part -->';
const cell = (s: string) => s.replace(/\|/g, '\\|');

function overview(): string[] {
  const rows = SETTINGS.filter((k) => CLASSES.some((c) => TABLE[c].settings[k] !== undefined));
  const head = `| setting | ${CLASSES.join(' | ')} |`;
  return [
    head,
    `|---|${CLASSES.map(() => '---').join('|')}|`,
    ...rows.map(
      (k) =>
        `| ${SETTING_LABELS[k]} | ${CLASSES.map((c) => {
          const e = TABLE[c].settings[k] as Entry<never> | undefined;
          return e === undefined ? '-' : cell(formatEntry(k, e));
        }).join(' | ')} |`,
    ),
  ];
}

function why(key: SettingKey, a: Advice<never> | null, when: string): string[] {
  return a === null
    ? []
    : [`- **${SETTING_LABELS[key]}**${when}: ${cell(formatEntry(key, a))}. ${a.reason} (${a.sources.join(', ')})`];
}

function perClass(): string[] {
  return CLASSES.flatMap((c) => {
    const t = TABLE[c];
    const aliases = Object.entries(ALIASES)
      .filter(([, v]) => v === c)
      .map(([k]) => `\`${k}\``);
    const lines = [
      `### ${c}`,
      '',
      `${t.summary}. Placement: ${t.placement === 'depends' ? 'detected or given (--placement)' : t.placement}.${aliases.length > 0 ? ` Also named ${aliases.join(', ')}.` : ''}`,
      '',
    ];
    for (const k of SETTINGS) {
      const e = t.settings[k] as Entry<never> | undefined;
      if (e === undefined) continue;
      if (isByPlacement(e)) lines.push(...why(k, e.bound, ' when bound'), ...why(k, e.unpinned, ' when unpinned'));
      else lines.push(...why(k, e, ''));
    }
    return [...lines, ''];
  });
}

export function generated(): string {
  return [
    BEGIN,
    '',
    '## The table',
    '',
    ...overview(),
    '',
    '## Each profile, with reasons',
    '',
    ...perClass(),
    '## Sources',
    '',
    ...Object.entries(SOURCES).map(([k, v]) => `- \`${k}\`: ${v}`),
    '',
    END,
  ].join('\n');
}

test('docs/profiles.md shows the knowledge table as it is', () => {
  const doc = readFileSync(DOC, 'utf8');
  const a = doc.indexOf(BEGIN);
  const b = doc.indexOf(END);
  assert.ok(a >= 0 && b > a, `${DOC} lacks the generated markers`);
  const want = `${doc.slice(0, a)}${generated()}${doc.slice(b + END.length)}`;
  if (process.env['UPDATE_GOLDEN'] === '1') writeFileSync(DOC, want);
  else assert.equal(doc, want, 'docs/profiles.md differs from the table: run with UPDATE_GOLDEN=1 and review the diff');
});
