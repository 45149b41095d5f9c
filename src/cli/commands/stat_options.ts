// Argument parsing of `numakit stat`: numastat's options (-c -m -n -p -s[NODE] -v -z and
// bare PIDs/patterns) plus numakit's (--numastat --json --procs --top --window --watch --count).
import { parseArgs } from 'node:util';
import { UsageError } from '../../model/errors.js';

export interface StatOptions {
  compress: boolean;
  meminfo: boolean;
  counters: boolean;
  specs: string[];
  /** null: no -s; -1: by Total; else the node argument. */
  sort: number | null;
  verbose: boolean;
  showZero: boolean;
  numastat: boolean;
  json: boolean;
  procs: boolean;
  top: number;
  windowSeconds: number;
  watch: number | null;
  count: number | null;
  /** No numastat option nor process: numastat's compatible default table. */
  compat: boolean;
}

function positiveNumber(v: string | undefined, flag: string, integer: boolean): number | null {
  if (v === undefined) return null;
  const n = Number(v);
  if (!/^\d+(\.\d+)?$/.test(v) || !(n > 0) || (integer && !Number.isInteger(n))) {
    throw new UsageError(`stat: ${flag} needs a positive ${integer ? 'integer' : 'number'}, got '${v}'`);
  }
  return n;
}

/** -s takes an optional attached node ("-s", "-s2"): getopt's "s::". */
function rewriteSort(args: string[]): string[] {
  return args.map((a) => {
    const m = /^-s(\d*)$/.exec(a);
    return m ? (m[1] === '' ? '--sort=-1' : `--sort=${m[1]}`) : a;
  });
}

export function parseStatArgs(args: string[]): StatOptions {
  const { values: v, positionals } = parseArgs({
    args: rewriteSort(args),
    allowPositionals: true,
    strict: true,
    options: {
      c: { type: 'boolean', short: 'c' }, m: { type: 'boolean', short: 'm' }, n: { type: 'boolean', short: 'n' },
      p: { type: 'string', short: 'p', multiple: true }, sort: { type: 'string' }, v: { type: 'boolean', short: 'v' },
      z: { type: 'boolean', short: 'z' }, numastat: { type: 'boolean' }, json: { type: 'boolean' }, procs: { type: 'boolean' },
      top: { type: 'string' }, window: { type: 'string' }, watch: { type: 'string' }, count: { type: 'string' },
    },
  });
  const specs = [...(v.p ?? []), ...positionals];
  const o: StatOptions = {
    compress: v.c === true, meminfo: v.m === true, counters: v.n === true, specs,
    sort: v.sort === undefined ? null : Number(v.sort), verbose: v.v === true, showZero: v.z !== true,
    numastat: v.numastat === true, json: v.json === true, procs: v.procs === true,
    top: positiveNumber(v.top, '--top', true) ?? 20, windowSeconds: positiveNumber(v.window, '--window', false) ?? 1,
    watch: positiveNumber(v.watch, '--watch', false), count: positiveNumber(v.count, '--count', true), compat: false,
  };
  o.compat = !o.compress && !o.meminfo && !o.counters && specs.length === 0 && o.sort === null && !o.verbose && o.showZero;
  if (o.numastat && o.json) throw new UsageError('stat: --numastat and --json cannot be used together');
  if (o.procs && (o.watch !== null || o.numastat)) throw new UsageError('stat: --procs cannot be combined with --watch or --numastat');
  if (o.watch !== null && (!o.compat || o.numastat)) throw new UsageError('stat: --watch takes no numastat options (it shows the counters per second)');
  if ((v.top !== undefined || v.window !== undefined) && !o.procs) throw new UsageError('stat: --top and --window go with --procs');
  if (v.count !== undefined && o.watch === null) throw new UsageError('stat: --count goes with --watch');
  return o;
}
