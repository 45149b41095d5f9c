// Whether this process is numakit's single executable: the bundle's banner (scripts/build-sea.mjs)
// puts node:sea on globalThis. Tiny on purpose: every --example run asks.
export interface SeaApi {
  isSea(): boolean;
  getRawAsset(key: string): ArrayBuffer;
}

/** node:sea, when this process is the single executable. */
export function sea(): SeaApi | null {
  const api = (globalThis as { __numakitSea?: SeaApi }).__numakitSea;
  return api?.isSea() ? api : null;
}
