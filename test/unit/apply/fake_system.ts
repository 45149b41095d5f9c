// A fake running system for apply/rollback tests: a copy of test/fixtures/apply/knobs in a
// temporary directory, written with the kernel's manners (a selector file moves its brackets,
// an unknown selector word is EINVAL, a number file reads back with a newline), and a
// file-backed service manager so that a child process and the test share its state.
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeKnob, type ServiceManager, type System, openSystem } from '../../../src/actuate/system.js';
import type { ServiceState } from '../../../src/model/change.js';
import { NumakitError } from '../../../src/model/errors.js';
import { openRoot, rootPath } from '../../../src/sysfs/root.js';

export const KNOBS = fileURLToPath(new URL('../../fixtures/apply/knobs', import.meta.url));

export interface FakeOptions {
  /** Root-relative paths (or "service:UNIT") whose writes fail as on a read-only knob. */
  readonly failOn?: readonly string[];
  /** Paths whose writes succeed but are ignored (read back unchanged). */
  readonly ignoreOn?: readonly string[];
  readonly isRoot?: boolean;
}

/** A fresh copy of the knobs fixture (plus services irqbalance and ksmtuned running); returns its directory. */
export function makeTree(): string {
  const dir = mkdtempSync(join(tmpdir(), 'numakit-apply-'));
  cpSync(KNOBS, dir, { recursive: true });
  mkdirSync(join(dir, 'fake-services'));
  writeFileSync(join(dir, 'fake-services', 'irqbalance'), 'running');
  writeFileSync(join(dir, 'fake-services', 'ksmtuned'), 'running');
  return dir;
}

function fakeServices(dir: string, failOn: readonly string[]): ServiceManager {
  const file = (unit: string) => join(dir, 'fake-services', unit);
  return {
    state: (unit) => (existsSync(file(unit)) ? (readFileSync(file(unit), 'utf8') as ServiceState) : null),
    set(unit, state) {
      if (failOn.includes(`service:${unit}`)) throw new NumakitError(`systemctl stop ${unit} failed: Access denied`);
      writeFileSync(file(unit), state);
    },
  };
}

/** Kernel-like content after writing `value` over `old`. */
function kernelContent(path: string, old: string, value: string): string {
  const v = value.trim();
  if (!/\[/.test(old)) return `${v}\n`;
  const words = old.replace(/[[\]]/g, '').trim().split(/\s+/);
  if (!words.includes(v)) throw new NumakitError(`/${path}: cannot write '${v}': invalid value (EINVAL)`);
  return `${words.map((w) => (w === v ? `[${w}]` : w)).join(' ')}\n`;
}

export function fakeSystem(dir: string, opts: FakeOptions = {}): System {
  const root = openRoot(dir, 'fake');
  const base = openSystem(root, { isRoot: opts.isRoot ?? true, services: fakeServices(dir, opts.failOn ?? []) });
  return {
    ...base,
    write(rel, text) {
      if (opts.failOn?.includes(rel))
        throw new NumakitError(`/${rel}: cannot write '${text.trim()}': read-only file system (EROFS)`);
      if (opts.ignoreOn?.includes(rel)) return;
      const old = base.read(rel);
      if (old === null) throw new NumakitError(`/${rel}: cannot write: no such file (ENOENT)`);
      writeKnob(rootPath(root, rel), kernelContent(rel, old, text));
    },
    canWrite: (rel) => (opts.isRoot ?? true) || (!rel.startsWith('proc/') && !rel.startsWith('sys/')),
  };
}

/** Every file under dir (relative path -> content), to compare trees byte for byte. */
export function treeContents(dir: string, skip = /^(journal|state)\//): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      const rel = relative(dir, p);
      if (skip.test(`${rel}/`) || skip.test(rel)) continue;
      if (statSync(p).isDirectory()) walk(p);
      else out[rel] = readFileSync(p, 'utf8');
    }
  };
  walk(dir);
  return out;
}
