// The progress line on stderr while a benchmark runs (only when stderr is a terminal). Pure.

const clock = (s: number) => {
  const t = Math.max(0, Math.round(s));
  return `${Math.floor(t / 60)}:${String(t % 60).padStart(2, '0')}`;
};

/** "\r[=====>     ] 12/48 eta 0:35  read node 0 -> node 1", padded to `width` columns. */
export function renderProgress(done: number, total: number, elapsedS: number, what: string, width = 80): string {
  const bar = 20;
  const filled = total === 0 ? bar : Math.min(bar, Math.floor((done / total) * bar));
  const eta = done === 0 ? '?' : clock((elapsedS / done) * (total - done));
  const line = `[${'='.repeat(filled)}${filled < bar ? '>' : ''}${' '.repeat(Math.max(0, bar - filled - 1))}] ${done}/${total} eta ${eta}  ${what}`;
  return `\r${line.slice(0, width - 1).padEnd(width - 1)}`;
}

/** Clears the progress line. */
export function clearProgress(width = 80): string {
  return `\r${' '.repeat(width - 1)}\r`;
}
