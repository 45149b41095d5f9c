// The read warnings of a run (files that exist but could not be used), for --json output:
// every command that prints JSON carries them as "warnings": [one line each], the same lines
// main prints once on stderr as "numakit: warning: ...". See docs/reliability.md.
import type { Context } from './context.js';

export function readWarnings(ctx: Context): string[] {
  return ctx.root.warnings?.lines() ?? [];
}
