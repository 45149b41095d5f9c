// Several commands in one guest boot (a boot costs seconds under TCG): each section runs in its
// own subshell, in order, with its own stdout/stderr/exit code; a failing section does not stop
// the next. Files a section writes under $LAB_OUT come back in the result's outDir.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInGuest, type GuestOptions, type GuestResult } from './guest.js';
import type { Topology } from './topology.js';

export interface SectionResult {
  readonly name: string;
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface SectionsRun {
  /** The whole guest run (its log shows why a boot failed). */
  readonly guest: GuestResult;
  readonly sections: Readonly<Record<string, SectionResult>>;
  /** Host directory with what the sections wrote under $LAB_OUT (removed by cleanup()). */
  readonly outDir: string;
  cleanup(): void;
}

const SECTIONS_DIR = '.sections';

function sectionScript(sections: Readonly<Record<string, string>>): string {
  const lines = [`mkdir -p "$LAB_OUT/${SECTIONS_DIR}"`];
  for (const [name, cmd] of Object.entries(sections)) {
    if (!/^[A-Za-z0-9_-]+$/.test(name)) throw new Error(`section name '${name}' must be [A-Za-z0-9_-]+`);
    const base = `"$LAB_OUT/${SECTIONS_DIR}/${name}"`;
    lines.push(`(\n${cmd}\n) </dev/null >${base}.out 2>${base}.err; echo $? >${base}.rc`);
  }
  return lines.join('\n');
}

function readSection(dir: string, name: string): SectionResult {
  const read = (ext: string) =>
    existsSync(join(dir, `${name}.${ext}`)) ? readFileSync(join(dir, `${name}.${ext}`), 'utf8') : '';
  const rc = read('rc').trim();
  return { name, code: /^\d+$/.test(rc) ? Number(rc) : null, stdout: read('out'), stderr: read('err') };
}

/** Runs each named section in one guest; results by name (code null: the section never ran). */
export async function runSections(
  topology: Topology,
  sections: Readonly<Record<string, string>>,
  opts: Omit<GuestOptions, 'outDir'> = {},
): Promise<SectionsRun> {
  const outDir = mkdtempSync(join(tmpdir(), 'numakit-lab-out-'));
  const guest = await runInGuest(topology, sectionScript(sections), { ...opts, outDir });
  const dir = join(outDir, SECTIONS_DIR);
  const results = Object.fromEntries(Object.keys(sections).map((n) => [n, readSection(dir, n)]));
  return { guest, sections: results, outDir, cleanup: () => rmSync(outDir, { recursive: true, force: true }) };
}
