// The outside programs tests run (a real Prometheus, chromium, systemd-analyze, shells ...): the
// one table of where each comes from, and the one rule for when it is absent. On a fresh machine
// with Node alone a test that needs one skips with a line naming the tool and its Debian
// package; with NUMAKIT_REQUIRE_TOOLS=1 (.ci/run sets it, and installs them all) an absent tool
// fails instead, so CI cannot pass by skipping.
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import type { TestContext } from 'node:test';

/** Tool (as found on PATH) -> the Debian package that installs it. */
export const TOOL_PACKAGES = {
  sh: 'dash',
  bash: 'bash',
  script: 'bsdutils',
  setpriv: 'util-linux',
  unshare: 'util-linux',
  numactl: 'numactl',
  numastat: 'numactl',
  'lstopo-no-graphics': 'hwloc-nox',
  'hwloc-calc': 'hwloc-nox',
  'systemd-analyze': 'systemd',
  'systemd-run': 'systemd',
  shellcheck: 'shellcheck',
  prometheus: 'prometheus',
  promtool: 'prometheus',
  'prometheus-node-exporter': 'prometheus-node-exporter',
  chromium: 'chromium',
  groff: 'groff',
  man: 'man-db',
  zsh: 'zsh',
  fish: 'fish',
  'ansible-lint': 'ansible-lint',
  'ansible-playbook': 'ansible',
  kubectl: 'kubectl',
  openssl: 'openssl',
  curl: 'curl',
} as const;

export type ToolName = keyof typeof TOOL_PACKAGES;

export const REQUIRE_TOOLS_VAR = 'NUMAKIT_REQUIRE_TOOLS';

export function toolsRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[REQUIRE_TOOLS_VAR] === '1';
}

/** The tool's path on PATH (or the absolute path itself when executable), or null. */
export function toolPath(name: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const candidates = isAbsolute(name)
    ? [name]
    : (env.PATH ?? '')
        .split(delimiter)
        .filter((d) => d !== '')
        .map((d) => join(d, name));
  for (const p of candidates) {
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // not here: the next PATH entry
    }
  }
  return null;
}

export function haveTool(name: ToolName): boolean {
  return toolPath(name) !== null;
}

/** Tools no Debian package provides (in a recent enough version), and where they come from. */
const NOT_FROM_DEBIAN: Partial<Record<ToolName, string>> = {
  kubectl: "kubectl >= 1.21 from Kubernetes' releases; Debian's kubernetes-client 1.20 has too old a kustomize",
};

/** The one skip line: "zsh is not installed (Debian package zsh; .ci/run installs it)". */
export function missingLine(name: ToolName): string {
  const other = NOT_FROM_DEBIAN[name];
  const from =
    other === undefined ? `Debian package ${TOOL_PACKAGES[name]}; .ci/run installs it` : `${other}; CI's image has it`;
  return `${name} is not installed (${from})`;
}

/** The first of the tools that is absent, as its skip line; null when all are there. */
function firstMissing(tools: readonly ToolName[]): string | null {
  const absent = tools.find((t) => !haveTool(t));
  return absent === undefined ? null : missingLine(absent);
}

/**
 * For node:test's `skip` option: false when every tool is there, else the skip line. Under
 * NUMAKIT_REQUIRE_TOOLS=1 an absent tool throws instead (the test file fails, naming it).
 */
export function skipUnlessTools(...tools: ToolName[]): string | false {
  const why = firstMissing(tools);
  if (why === null) return false;
  if (toolsRequired()) throw new Error(`${why}: required (${REQUIRE_TOOLS_VAR}=1)`);
  return why;
}

/** Inside a test: true when every tool is there; otherwise skips t (or fails under NUMAKIT_REQUIRE_TOOLS=1). */
export function needTools(t: TestContext, ...tools: ToolName[]): boolean {
  const why = skipUnlessTools(...tools);
  if (why === false) return true;
  t.skip(why);
  return false;
}
