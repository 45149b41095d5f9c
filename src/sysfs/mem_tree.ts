// A snapshot held in memory: files, directories and symlinks by root-relative path. A SysRoot
// with a `tree` is read through it by src/sysfs/read.ts instead of the file system, so reading
// a snapshot archive needs no extraction to disk (1,000-file trees take seconds to write and
// microseconds to look up). Links are resolved here as the kernel would, staying in the tree.
import { posix } from 'node:path';

export type TreeEntry =
  // Bytes are decoded when read: most of a snapshot's files are read once, some never.
  | { readonly kind: 'file'; readonly data: Uint8Array | string }
  | { readonly kind: 'link'; readonly target: string }
  | { readonly kind: 'dir' };

export type TreeLookup =
  | { readonly ok: true; readonly entry: TreeEntry; readonly path: string }
  | { readonly ok: false; readonly reason: 'missing' | 'loop' };

const MAX_HOPS = 40;
const DECODER = new TextDecoder();

export class MemTree {
  private readonly entries = new Map<string, TreeEntry>();
  private readonly children = new Map<string, Set<string>>([['', new Set()]]);

  /** Adds an entry; its parent directories are implied. `rel` is normalised, never absolute. */
  add(rel: string, entry: TreeEntry): void {
    const path = normalise(rel);
    if (path === '') return;
    const had = this.entries.get(path);
    if (!(had?.kind === 'dir' && entry.kind === 'dir')) this.entries.set(path, entry);
    if (entry.kind === 'dir' && !this.children.has(path)) this.children.set(path, new Set());
    // Walk up until a directory that is already known: its own parents are known too.
    let child = path;
    for (;;) {
      const cut = child.lastIndexOf('/');
      const parent = cut < 0 ? '' : child.slice(0, cut);
      const known = this.children.get(parent);
      if (known) {
        known.add(child.slice(cut + 1));
        return;
      }
      this.children.set(parent, new Set([child.slice(cut + 1)]));
      this.entries.set(parent, { kind: 'dir' });
      child = parent;
    }
  }

  /** A file's text, or null when `rel` is not a file (after links). */
  readText(rel: string): string | null {
    const r = this.lookup(rel);
    if (!r.ok || r.entry.kind !== 'file') return null;
    const d = r.entry.data;
    return typeof d === 'string' ? d : DECODER.decode(d);
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * The entry at `rel`, following symlinks in every component (and the last one too when
   * `followLast`). Absolute link targets are taken relative to the tree's root.
   */
  lookup(rel: string, followLast = true): TreeLookup {
    // Fast path: an entry stored under exactly this name has no link among its parents
    // (an archive cannot hold a/b/c when a/b is a link).
    const exact = this.entries.get(rel);
    if (exact !== undefined && (exact.kind !== 'link' || !followLast)) return { ok: true, entry: exact, path: rel };
    // Not normalise(): a reader may build a path with ".." (a cgroup path read from /proc); ".."
    // is walked below and stops at the tree's root, like the kernel's at "/".
    const parts = rel.split('/').filter((p) => p !== '' && p !== '.');
    let cur = '';
    let hops = 0;
    for (let i = 0; i < parts.length; i++) {
      const name = parts[i]!;
      const next = name === '..' ? parentOf(cur) : cur === '' ? name : `${cur}/${name}`;
      const e = name === '..' ? undefined : this.entries.get(next);
      if (name !== '..' && e === undefined) return { ok: false, reason: 'missing' };
      if (e?.kind === 'link' && (followLast || i < parts.length - 1)) {
        if (++hops > MAX_HOPS) return { ok: false, reason: 'loop' };
        const joined = e.target.startsWith('/') ? e.target.slice(1) : posix.join(cur === '' ? '.' : cur, e.target);
        parts.splice(0, i + 1, ...joined.split('/').filter((p) => p !== '' && p !== '.'));
        cur = '';
        i = -1;
        continue;
      }
      cur = next;
    }
    if (cur === '') return { ok: true, entry: { kind: 'dir' }, path: '' };
    const entry = this.entries.get(cur);
    return entry === undefined ? { ok: false, reason: 'missing' } : { ok: true, entry, path: cur };
  }

  /** Names in a directory (sorted), or null when `rel` is not a directory. */
  list(rel: string): string[] | null {
    const r = this.lookup(rel);
    if (!r.ok || r.entry.kind !== 'dir') return null;
    return [...(this.children.get(r.path) ?? [])].sort();
  }
}

function parentOf(p: string): string {
  const d = posix.dirname(p);
  return d === '.' ? '' : d;
}

/** "./sys/x/" -> "sys/x"; throws on absolute paths and ".." (an archive must not name them). */
export function normalise(rel: string): string {
  const plain = rel.startsWith('./') ? rel.slice(2) : rel;
  if (!plain.startsWith('/') && !/(^|\/)\.{1,2}(\/|$)|\/\//.test(plain))
    return plain.endsWith('/') ? plain.slice(0, -1) : plain;
  const parts = rel.split('/').filter((p) => p !== '' && p !== '.');
  if (rel.startsWith('/') || parts.includes('..')) throw new RangeError(`unsafe path '${rel}'`);
  return parts.join('/');
}
