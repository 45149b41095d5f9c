// Sizes as numakit prints them everywhere: binary units (KiB, MiB, GiB, TiB), one decimal only
// where it says something ("88.5 GiB", "96 GiB", "127.5 GiB", "391 MiB"). numastat-compatible tables keep
// numastat's MB columns (2^20 bytes), as numastat prints them. Pure.

/** "93.8 GiB", "96 GiB", "127.5 GiB", "512 MiB", "0 B"; null -> "?". */
export function formatBytes(bytes: number | null): string {
  if (bytes === null) return '?';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let v = bytes;
  let i = 0;
  while (Math.abs(v) >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  if (i === 0) return `${v} B`;
  return `${v.toFixed(1).replace(/\.0$/, '')} ${units[i]}`;
}

/** "1 rx queue", "8 rx queues". */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
