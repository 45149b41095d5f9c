// test/helpers/tools.ts: the one rule for tests that need an outside program. Absent, the test
// skips with a line naming the tool and its Debian package; under NUMAKIT_REQUIRE_TOOLS=1 (CI)
// the absence fails instead; .ci/run sets that variable and installs every package the table names.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, it } from 'node:test';
import { REPO_DIR } from '../../helpers/cli.js';
import { skipUnlessTools, TOOL_PACKAGES, toolPath } from '../../helpers/tools.js';

const dir = mkdtempSync(join(tmpdir(), 'numakit-tools-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Runs f with PATH and NUMAKIT_REQUIRE_TOOLS set as given, then puts them back. */
function withEnv<T>(env: { PATH: string; NUMAKIT_REQUIRE_TOOLS?: string }, f: () => T): T {
  const saved = { PATH: process.env.PATH, NUMAKIT_REQUIRE_TOOLS: process.env.NUMAKIT_REQUIRE_TOOLS };
  process.env.PATH = env.PATH;
  if (env.NUMAKIT_REQUIRE_TOOLS === undefined) delete process.env.NUMAKIT_REQUIRE_TOOLS;
  else process.env.NUMAKIT_REQUIRE_TOOLS = env.NUMAKIT_REQUIRE_TOOLS;
  try {
    return f();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

it('finds a tool on PATH only when it is executable there', () => {
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'zsh'), '#!/bin/true\n');
  assert.equal(toolPath('zsh', { PATH: `/nonexistent:${bin}` }), null, 'not executable');
  chmodSync(join(bin, 'zsh'), 0o755);
  assert.equal(toolPath('zsh', { PATH: `/nonexistent:${bin}` }), join(bin, 'zsh'));
  assert.equal(toolPath('zsh', { PATH: '' }), null);
});

it('an absent tool: a skip line naming the tool and its Debian package; present: no skip', () => {
  const empty = join(dir, 'empty');
  assert.equal(
    withEnv({ PATH: empty }, () => skipUnlessTools('groff', 'man')),
    'groff is not installed (Debian package groff; .ci/run installs it)',
  );
  assert.equal(
    withEnv({ PATH: empty }, () => skipUnlessTools('promtool')),
    'promtool is not installed (Debian package prometheus; .ci/run installs it)',
  );
  assert.equal(
    withEnv({ PATH: dirname(process.execPath) }, () => skipUnlessTools()),
    false,
  );
});

it('under NUMAKIT_REQUIRE_TOOLS=1 an absent tool fails instead of skipping', () => {
  const empty = join(dir, 'empty');
  assert.throws(
    () => withEnv({ PATH: empty, NUMAKIT_REQUIRE_TOOLS: '1' }, () => skipUnlessTools('zsh')),
    /^Error: zsh is not installed \(Debian package zsh; \.ci\/run installs it\): required \(NUMAKIT_REQUIRE_TOOLS=1\)$/,
  );
});

it('.ci/run sets NUMAKIT_REQUIRE_TOOLS=1 before the tests and installs every Debian package the table names', () => {
  const ci = readFileSync(join(REPO_DIR, '.ci', 'run'), 'utf8');
  const exportAt = ci.indexOf('\nexport NUMAKIT_REQUIRE_TOOLS=1\n');
  assert.ok(exportAt > 0 && exportAt < ci.indexOf('npm test'), 'exported before npm test');
  const apt = /apt-get install[^\n]*\\\n((?:[^\n]*\\\n)*[^\n]*)\n/.exec(ci)?.[1] ?? '';
  const installed = new Set(apt.split(/[\s\\]+/).filter(Boolean));
  // Essential on every Debian (never missing there), and kubectl, which is not a Debian package.
  const notApt = new Set(['dash', 'bash', 'bsdutils', 'util-linux']);
  for (const [tool, pkg] of Object.entries(TOOL_PACKAGES)) {
    if (tool === 'kubectl') {
      assert.match(ci, /command -v kubectl/);
      continue;
    }
    if (!notApt.has(pkg)) assert.ok(installed.has(pkg), `${tool}: .ci/run does not install ${pkg}`);
  }
});
