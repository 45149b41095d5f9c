// /etc/os-release (or /usr/lib/os-release, which it usually links to): the distribution, so a
// plan writes for the units and config paths of the packages there. See os-release(5): KEY=value
// lines, values optionally quoted, '#' comments.
import { SysfsParseError } from '../model/errors.js';
import type { OsRelease } from '../model/os_release.js';
import { readFile } from './read.js';
import { parseOrWarn } from './read_parsed.js';
import type { SysRoot } from './root.js';

export const OS_RELEASE_PATHS = ['etc/os-release', 'usr/lib/os-release'];

function unquote(v: string): string {
  const m = /^(["'])(.*)\1$/.exec(v.trim());
  return (m ? m[2]! : v.trim()).replace(/\\(["'$`\\])/g, '$1');
}

export function parseOsRelease(text: string, path = 'etc/os-release'): OsRelease {
  const kv = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^\s*([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (m) kv.set(m[1]!, unquote(m[2]!));
  }
  const id = kv.get('ID');
  if (id === undefined || id === '') throw new SysfsParseError('no ID= line', { text: text.slice(0, 60) });
  return {
    id: id.toLowerCase(),
    idLike: (kv.get('ID_LIKE') ?? '')
      .toLowerCase()
      .split(/\s+/)
      .filter((x) => x !== ''),
    versionId: kv.get('VERSION_ID') ?? null,
    prettyName: kv.get('PRETTY_NAME') ?? null,
    path,
  };
}

/**
 * The distribution of the root, or null when neither file is there (a bare snapshot, an
 * example captured without it) or the first one found cannot be parsed (a warning says so).
 */
export function readOsRelease(root: SysRoot): OsRelease | null {
  for (const path of OS_RELEASE_PATHS) {
    const r = readFile(root, path);
    if (r.ok) return parseOrWarn(root, path, r.text, (t) => parseOsRelease(t, path));
  }
  return null;
}
