// koffi, from node_modules, or inside the single executable from its embedded native module
// for this machine's architecture (x64 or arm64), written to the cache and checked first. The
// executable is Node built against glibc, so it runs on glibc systems only: koffi's glibc build.
//
// From node_modules, koffi's prebuilt native module (@koromix/koffi-<platform>-<arch>, which
// koffi itself loads) is opened directly when it is found next to koffi: koffi's JavaScript
// entry reads the node binary's ELF header to tell glibc from musl and resolves its package
// through the ES module resolver, milliseconds of CPU before `numakit run`'s command could start
// (docs/startup.md). The glibc build is tried first, then musl's; a layout where neither is
// found, or neither loads, goes through require('koffi').
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as KoffiModule from 'koffi';
import { sea } from '../runtime/is_sea.js';
import { assetFile } from '../runtime/sea_assets.js';

export function loadKoffi(): typeof KoffiModule {
  if (sea() === null) return loadPrebuilt() ?? (createRequire(import.meta.url)('koffi') as typeof KoffiModule);
  const path = assetFile(`koffi/linux_${process.arch}/koffi.node`, `koffi-linux-${process.arch}.node`);
  const mod = { exports: {} as typeof KoffiModule };
  process.dlopen(mod, path);
  return mod.exports;
}

/** The prebuilt package's directory, as Node's resolution would find it from here (hoisted or under koffi). */
export function prebuiltDir(from: string, exists: (p: string) => boolean = existsSync): string | null {
  const pkg = `@koromix/koffi-${process.platform}-${process.arch}`;
  for (let dir = from; ; dir = dirname(dir)) {
    for (const candidate of [join(dir, 'node_modules', pkg), join(dir, 'node_modules', 'koffi', 'node_modules', pkg)])
      if (exists(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) return null;
  }
}

function loadPrebuilt(): typeof KoffiModule | null {
  if (process.platform !== 'linux') return null;
  const dir = prebuiltDir(dirname(fileURLToPath(import.meta.url)));
  if (dir === null) return null;
  for (const libc of ['linux', 'musl']) {
    const path = join(dir, `${libc}_${process.arch}`, 'koffi.node');
    if (!existsSync(path)) continue;
    const mod = { exports: {} as typeof KoffiModule & { version?: string } };
    try {
      process.dlopen(mod, path);
    } catch {
      continue; // the other libc's build: not loadable here
    }
    return mod.exports;
  }
  return null;
}
