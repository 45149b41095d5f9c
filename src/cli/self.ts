// numakit never lists itself among the processes it shows (stat --procs, top, the overview):
// its memory and CPU are the observer's, not the machine's. Only on the real root: a snapshot's
// pids belong to another machine.
import type { Context } from './context.js';

export function withoutSelf<T extends { readonly pid: number }>(
  samples: readonly T[],
  ctx: Pick<Context, 'root'>,
): T[] {
  return ctx.root.isReal ? samples.filter((s) => s.pid !== process.pid) : [...samples];
}
