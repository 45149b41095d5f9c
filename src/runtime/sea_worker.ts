// A worker thread's entry inside the single executable. The executable has no module files
// beside it, so each worker's entry is bundled on its own by scripts/build-sea.mjs (an asset,
// workers/NAME.cjs) and written to the private cache on first use, like koffi's native module.
import { pathToFileURL } from 'node:url';
import { assetFile, sea } from './sea_assets.js';

/** The entry of worker NAME (as scripts/build-sea.mjs's WORKERS names it) when this is the executable; null otherwise. */
export function seaWorker(name: string): URL | null {
  return sea() === null ? null : pathToFileURL(assetFile(`workers/${name}.cjs`, `${name}.cjs`));
}
