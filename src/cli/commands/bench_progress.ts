// A progress reporter for long benchmarks: a line with a bar and ETA on stderr when stderr is a
// terminal, nothing at all otherwise (pipes and files get no stray output).
import { clearProgress, renderProgress } from '../../render/bench/progress.js';

export interface Progress {
  readonly update?: (done: number, total: number, what: string) => void;
  readonly done: () => void;
}

export function stderrProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  if (stream.isTTY !== true) return { done: () => {} };
  const t0 = Date.now();
  const width = Math.max(40, Math.min(stream.columns ?? 80, 120));
  let shown = false;
  return {
    update: (done, total, what) => {
      shown = true;
      stream.write(renderProgress(done, total, (Date.now() - t0) / 1000, what, width));
    },
    done: () => {
      if (shown) stream.write(clearProgress(width));
    },
  };
}
