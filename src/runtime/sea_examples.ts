// The example machines inside the single executable: one asset (examples.json, written by
// scripts/build-sea.mjs: [path, 'd'] | [path, 'f', base64] | [path, 'l', link target]) unpacked
// once into the cache, next to a marker that it is complete.
import { existsSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { NumakitError } from '../model/errors.js';
import { assetFile, cacheDir } from './sea_assets.js';

type Entry = [string, 'd'] | [string, 'f', string] | [string, 'l', string];

export function seaExamplesDir(): string {
  const packed = assetFile('examples.json', 'examples.json');
  const dir = join(cacheDir(), `${packed.slice(packed.lastIndexOf('/') + 1, packed.lastIndexOf('/') + 17)}-examples`);
  if (existsSync(join(dir, '.complete'))) return dir;
  const tmp = `${dir}.${process.pid}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  for (const [rel, kind, data] of JSON.parse(readFileSync(packed, 'utf8')) as Entry[]) {
    const path = join(tmp, normalize(rel));
    if (!path.startsWith(`${tmp}/`)) throw new NumakitError(`examples asset: ${rel} leaves its directory`);
    mkdirSync(kind === 'd' ? path : dirname(path), { recursive: true });
    if (kind === 'f') writeFileSync(path, Buffer.from(data!, 'base64'));
    else if (kind === 'l') symlinkSync(data!, path);
  }
  writeFileSync(join(tmp, '.complete'), '');
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  return dir;
}
