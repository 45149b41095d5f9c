// .tar.gz snapshots: extracted to a private temporary directory for --root.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NumakitError } from '../model/errors.js';

export async function extractSnapshot(file: string): Promise<string> {
  const tar = await import('tar');
  const dir = mkdtempSync(join(tmpdir(), 'numakit-root-'));
  try {
    await tar.x({ file, cwd: dir, strict: true });
  } catch (e) {
    throw new NumakitError(`--root ${file}: cannot read the archive: ${(e as Error).message}`);
  }
  return dir;
}

/** Packs a snapshot directory (its sys/, proc/ and manifest.json) into a .tar.gz. */
export async function createSnapshotArchive(dir: string, file: string): Promise<void> {
  const tar = await import('tar');
  const { readdirSync } = await import('node:fs');
  await tar.c({ file, cwd: dir, gzip: true, portable: true }, readdirSync(dir).sort());
}
