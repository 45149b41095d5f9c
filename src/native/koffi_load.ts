// koffi, from node_modules, or inside the single executable from its embedded native module
// for this machine's architecture (x64 or arm64), written to the cache and checked first. The
// executable is Node built against glibc, so it runs on glibc systems only: koffi's glibc build.
import { createRequire } from 'node:module';
import type * as KoffiModule from 'koffi';
import { sea } from '../sea/is_sea.js';
import { assetFile } from '../sea/runtime.js';

export function loadKoffi(): typeof KoffiModule {
  if (sea() === null) return createRequire(import.meta.url)('koffi') as typeof KoffiModule;
  const path = assetFile(`koffi/linux_${process.arch}/koffi.node`, `koffi-linux-${process.arch}.node`);
  const mod = { exports: {} as typeof KoffiModule };
  process.dlopen(mod, path);
  return mod.exports;
}
