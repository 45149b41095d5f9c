// numakit as a single executable (Node's SEA, scripts/build-sea.mjs): the bundle's banner puts
// node:sea on globalThis, and what the npm package reads from node_modules or the package
// directory (koffi's native module, the example machines) is an asset inside the executable,
// written on first use to a private cache directory and checked by its SHA-256 before use.
//
// node:crypto and node:os are loaded when an asset is first needed, not when this module is:
// koffi_load.ts imports it, so `numakit run` (which loads koffi from node_modules) would
// otherwise compile crypto's 20 internal modules at every launch (docs/startup.md).
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ensurePrivateDir } from './private_path.js';
import { NumakitError } from '../model/errors.js';

import { sea } from './is_sea.js';

export { sea };

/** The asset manifest the build embeds: key -> SHA-256 of its bytes. */
function expectedHash(key: string): string {
  const m = (globalThis as { __numakitSeaAssets?: Record<string, string> }).__numakitSeaAssets ?? {};
  const h = m[key];
  if (h === undefined)
    throw new NumakitError(`this numakit executable carries no ${key} (built for another platform?)`);
  return h;
}

const builtin = <T>(name: string): T => createRequire(import.meta.url)(name) as T;

const sha256 = (b: Uint8Array) =>
  builtin<typeof import('node:crypto')>('node:crypto').createHash('sha256').update(b).digest('hex');

/**
 * numakit's cache: $NUMAKIT_CACHE_DIR, else $XDG_CACHE_HOME/numakit, else ~/.cache/numakit.
 * Created 0700; refused when another user could write it or a component of its path
 * (private_path.ts: a native module there could be replaced before it loads).
 */
export function cacheDir(): string {
  const { homedir, tmpdir } = builtin<typeof import('node:os')>('node:os');
  const home = homedir();
  const base =
    process.env['NUMAKIT_CACHE_DIR'] ??
    join(process.env['XDG_CACHE_HOME'] ?? (home !== '' ? join(home, '.cache') : tmpdir()), 'numakit');
  ensurePrivateDir(base, 'cache directory (NUMAKIT_CACHE_DIR)');
  return base;
}

/** An asset's bytes, read from the executable and checked (for files used in memory, like the dashboard's). */
export function assetBytes(key: string): Buffer {
  const api = sea();
  if (api === null) throw new Error(`assetBytes(${key}) outside the single executable`);
  const bytes = Buffer.from(api.getRawAsset(key));
  if (sha256(bytes) !== expectedHash(key))
    throw new NumakitError(`this numakit executable is damaged: asset ${key} does not match its checksum`);
  return bytes;
}

/** An asset written to the cache as NAME (once; rewritten when its bytes do not match). */
export function assetFile(key: string, name: string): string {
  const api = sea();
  if (api === null) throw new Error(`assetFile(${key}) outside the single executable`);
  const want = expectedHash(key);
  const path = join(cacheDir(), `${want.slice(0, 16)}-${name}`);
  if (existsSync(path) && sha256(readFileSync(path)) === want) return path;
  const bytes = new Uint8Array(api.getRawAsset(key));
  if (sha256(bytes) !== want)
    throw new NumakitError(`this numakit executable is damaged: asset ${key} does not match its checksum`);
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, bytes, { mode: 0o600 });
  chmodSync(tmp, 0o500);
  renameSync(tmp, path);
  if (sha256(readFileSync(path)) !== want) throw new NumakitError(`${path}: changed while it was written`);
  return path;
}
