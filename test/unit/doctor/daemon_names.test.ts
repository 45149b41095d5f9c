// doctor keeps the names of the processes its rules look for (DOCTOR_DAEMONS), not of every
// process: a rule (or fleet's host facts) that asks comms for a name outside the list would be
// told it does not run. Every name looked up in src/policy is on the list.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DOCTOR_DAEMONS } from '../../../src/model/doctor_input.js';

const policy = fileURLToPath(new URL('../../../src/policy/', import.meta.url));
const files = (d: string): string[] =>
  readdirSync(d, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(d, e.name)) : e.name.endsWith('.ts') ? [join(d, e.name)] : [],
  );

test('every name the rules look up in comms is one doctor keeps', () => {
  const looked = new Set<string>();
  for (const f of files(policy)) {
    const text = readFileSync(f, 'utf8');
    for (const m of text.matchAll(/comms\.value\[['"]([^'"]+)['"]\]/g)) looked.add(m[1]!);
    // Any other way of reading comms (a variable key, a loop) would escape this check.
    for (const m of text.matchAll(/comms\.value(?!\[['"])/g)) assert.fail(`${f}: comms.value read at ${m.index}`);
  }
  assert.ok(looked.size >= 3, [...looked].join(','));
  assert.deepEqual(
    [...looked].filter((n) => !DOCTOR_DAEMONS.includes(n)),
    [],
  );
});
