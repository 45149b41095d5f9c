// .tar.gz snapshots, read into memory (readSnapshotArchive) for --root FILE.tar.gz and for
// numakit fleet report: never extracted, so nothing is written and nothing is left behind.
// The writing half (createSnapshotArchive) is in src/actuate/snapshot_write.ts.
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { constants as zlibConstants, gunzipSync } from 'node:zlib';
import { NumakitError } from '../model/errors.js';
import { MemTree, normalise } from './mem_tree.js';

/** Limits for an archive read into memory: a snapshot is a few MB at most (docs/fleet.md). */
export const ARCHIVE_LIMITS = { maxEntries: 200_000, maxFileBytes: 4 << 20, maxTotalBytes: 256 << 20 } as const;

const GZIP_MAGIC = [0x1f, 0x8b];
const SNAPSHOT_HINT = "a snapshot is a .tar.gz made by 'numakit snapshot'";

/**
 * What the file is not, in words, when tar refused it: not gzip at all, gzip that is cut short
 * or corrupt, or gzip whose content is not a tar archive (its first header has no ustar magic,
 * which is where tar's own messages, such as "invalid base256 encoding", come from). Null when
 * the start looks right and tar's message is the one to give.
 */
function notAnArchive(file: string): string | null {
  const head = Buffer.alloc(64 << 10);
  let n: number;
  try {
    const fd = openSync(file, 'r');
    try {
      n = readSync(fd, head, 0, head.length, 0);
    } finally {
      closeSync(fd);
    }
  } catch {
    return null; // tar's own message names the read error
  }
  if (n < 2 || head[0] !== GZIP_MAGIC[0] || head[1] !== GZIP_MAGIC[1]) return `not a gzip file (${SNAPSHOT_HINT})`;
  let start: Buffer;
  try {
    // The first blocks only: a sync flush lets a part of the stream inflate.
    start = gunzipSync(head.subarray(0, n), { finishFlush: zlibConstants.Z_SYNC_FLUSH });
  } catch {
    return `a gzip file that is corrupt (${SNAPSHOT_HINT})`;
  }
  if (start.length < 512)
    return n < head.length ? `a gzip file too short to hold a tar archive (${SNAPSHOT_HINT})` : null;
  if (start.subarray(257, 262).toString('latin1') !== 'ustar') {
    return `a gzip file, but not of a tar archive (no ustar header at its start; ${SNAPSHOT_HINT})`;
  }
  try {
    gunzipSync(readFileSync(file), { maxOutputLength: 2 * ARCHIVE_LIMITS.maxTotalBytes });
  } catch (e) {
    if (/unexpected end/i.test(String((e as Error).message)))
      return 'a tar.gz file cut short (truncated: copy it again)';
  }
  return null;
}

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
    const what = notAnArchive(file) ?? String((e as Error).message).split('\n')[0];
    throw new NumakitError(`${file}: cannot read the archive: ${what}`);
  }
  if (failure !== null) throw new NumakitError(`${file}: not a snapshot archive: ${failure}`);
  if (tree.size === 0) throw new NumakitError(`${file}: cannot read the archive: it is empty`);
  return tree;
}
