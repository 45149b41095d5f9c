// How lab tests run the built numakit CLI (npm run test:lab builds it first): in the guest as a
// shell command, and on the host as a child process.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { shellQuote } from './guest.js';
import { REPO_ROOT } from './setup.js';

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { bin: { numakit: string } };

/** Absolute path of the built CLI entry (package.json "bin"). */
export const NUMAKIT_BIN = join(REPO_ROOT, pkg.bin.numakit);

/** Shell prefix that runs numakit inside a guest, e.g. `${NUMAKIT} topo --json`. */
export const NUMAKIT = `node ${shellQuote(NUMAKIT_BIN)}`;

/** A helper script under test/lab/guest-helpers/, quoted for a guest shell command. */
export function guestHelper(name: string): string {
  return shellQuote(join(REPO_ROOT, 'test', 'lab', 'guest-helpers', name));
}

export interface HostRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function numakitOnHost(args: readonly string[]): HostRun {
  const r = spawnSync(process.execPath, [NUMAKIT_BIN, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
