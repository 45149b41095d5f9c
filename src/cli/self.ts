// numakit itself: how to start it again (bench ab's agent variant runs `numakit agent`), and
// never listing itself among the processes it shows (stat --procs, top, the overview): its
// memory and CPU are the observer's, not the machine's. Only on the real root: a snapshot's
// pids belong to another machine.
import { fileURLToPath } from 'node:url';
import type { Context } from './context.js';

/** The command line that starts numakit: node and dist/cli/bin.js, or src/cli/bin.ts under tsx. */
export function selfCommand(): string[] {
  const dev = import.meta.url.endsWith('.ts');
  const bin = fileURLToPath(new URL(dev ? './bin.ts' : './bin.js', import.meta.url));
  return dev ? [process.execPath, '--import', 'tsx', bin] : [process.execPath, bin];
}

export function withoutSelf<T extends { readonly pid: number }>(
  samples: readonly T[],
  ctx: Pick<Context, 'root'>,
): T[] {
  return ctx.root.isReal ? samples.filter((s) => s.pid !== process.pid) : [...samples];
}
