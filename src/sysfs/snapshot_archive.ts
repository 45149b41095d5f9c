// .tar.gz snapshots, read into memory (readSnapshotArchive) for --root FILE.tar.gz and for
// numakit fleet report: never extracted, so nothing is written and nothing is left behind.
// The writing half (createSnapshotArchive) is in src/actuate/snapshot_write.ts.
import { NumakitError } from '../model/errors.js';
import { MemTree, normalise } from './mem_tree.js';

/** Limits for an archive read into memory: a snapshot is a few MB at most (docs/fleet.md). */
export const ARCHIVE_LIMITS = { maxEntries: 200_000, maxFileBytes: 4 << 20, maxTotalBytes: 256 << 20 } as const;

/**
 * Reads a snapshot archive into memory: regular files, directories and symlinks; nothing is
 * written anywhere. Absolute or ".." paths, hard links, devices, and more than ARCHIVE_LIMITS
 * are refused: the error names the archive and the entry.
 */
export async function readSnapshotArchive(file: string): Promise<MemTree> {
  const tar = await import('tar');
  const tree = new MemTree();
  let total = 0;
  let failure: string | null = null;
  const fail = (why: string) => void (failure ??= why);
  try {
    tar.t({
      file,
      sync: true,
      strict: true,
      onReadEntry: (entry) => {
        // An entry not kept (refused, or after a refusal) is still read past: resume() drains it.
        const skip = (why?: string): void => {
          if (why !== undefined) fail(why);
          entry.resume();
        };
        if (failure !== null) return skip();
        let rel: string;
        try {
          rel = normalise(entry.path);
        } catch (e) {
          return skip((e as Error).message);
        }
        if (tree.size >= ARCHIVE_LIMITS.maxEntries) return skip(`more than ${ARCHIVE_LIMITS.maxEntries} entries`);
        if (entry.type === 'Directory') {
          tree.add(rel, { kind: 'dir' });
          return skip();
        }
        if (entry.type === 'SymbolicLink') {
          tree.add(rel, { kind: 'link', target: entry.linkpath ?? '' });
          return skip();
        }
        if (entry.type !== 'File' && entry.type !== 'OldFile')
          return skip(`${rel}: ${entry.type} entries are not part of a snapshot`);
        const size = entry.size ?? 0;
        total += size;
        if (size > ARCHIVE_LIMITS.maxFileBytes) return skip(`${rel}: ${size} bytes, more than a kernel file holds`);
        if (total > ARCHIVE_LIMITS.maxTotalBytes)
          return skip(`more than ${ARCHIVE_LIMITS.maxTotalBytes >> 20} MiB unpacked`);
        const chunks: Buffer[] = [];
        entry.on('data', (c: Buffer) => chunks.push(c));
        entry.on('end', () =>
          tree.add(rel, { kind: 'file', data: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) }),
        );
      },
    });
  } catch (e) {
    throw new NumakitError(`${file}: cannot read the archive: ${String((e as Error).message).split('\n')[0]}`);
  }
  if (failure !== null) throw new NumakitError(`${file}: not a snapshot archive: ${failure}`);
  if (tree.size === 0) throw new NumakitError(`${file}: cannot read the archive: it is empty`);
  return tree;
}
