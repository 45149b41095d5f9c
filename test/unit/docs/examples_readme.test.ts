// Every shipped example says what it is for: README.md has a line per example with a command to
// try on it and, in its comment, what that shows (docs_commands.test.ts runs each line and checks
// the output it names: expectations.ts).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { EXAMPLES_DIR } from '../../../src/cli/examples_dir.js';
import { REPO_DIR } from '../../helpers/cli.js';
import { EXPECT } from './expectations.js';

test('README.md has, for every example, a command to try and what it shows', () => {
  const readme = readFileSync(join(REPO_DIR, 'README.md'), 'utf8');
  const examples = readdirSync(EXAMPLES_DIR).filter((n) => existsSync(join(EXAMPLES_DIR, n, 'manifest.json')));
  assert.ok(examples.length >= 8);
  for (const name of examples) {
    const line = new RegExp(`^(numakit --example ${name} [^#\\n]*?)\\s+# (.{20,})$`, 'm').exec(readme);
    assert.ok(line, `README.md: no "numakit --example ${name} ... # what it shows" line`);
    assert.ok(EXPECT[line[1]!.trim()]?.line, `${line[1]}: expectations.ts names the line it must print`);
  }
});
