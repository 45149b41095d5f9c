// The argument list of `numakit run`, read like numactl's getopt_long("+..."): options
// until "--" or the first word that is not an option, which starts the command. Long
// options take "=VALUE" or the next word and may be shortened to a unique prefix; short
// ones take the rest of the word ("-iall") or the next word ("-i all"). Pure.
import { UnknownOptionError, UsageError } from '../../model/errors.js';
import type { PolicyKind, RunArgs } from '../../model/run_args.js';

/** Bad command line: exit status 2, as for every numakit command (numactl's usage() exits 1). */
export class RunArgsError extends UsageError {
  constructor(message: string) {
    super(message);
    this.name = 'RunArgsError';
  }
}

type Name =
  | PolicyKind
  | 'localalloc'
  | 'cpunodebind'
  | 'physcpubind'
  | 'show'
  | 'hardware'
  | 'all'
  | 'help'
  | 'balancing'
  | 'shm';

interface Opt {
  readonly long: string;
  readonly short?: string;
  readonly name: Name;
  readonly arg: boolean;
}

const OPTIONS: readonly Opt[] = [
  { long: 'interleave', short: 'i', name: 'interleave', arg: true },
  { long: 'weighted-interleave', short: 'w', name: 'weighted-interleave', arg: true },
  { long: 'preferred', short: 'p', name: 'preferred', arg: true },
  { long: 'preferred-many', short: 'P', name: 'preferred-many', arg: true },
  { long: 'membind', short: 'm', name: 'membind', arg: true },
  { long: 'localalloc', short: 'l', name: 'localalloc', arg: false },
  { long: 'cpunodebind', short: 'N', name: 'cpunodebind', arg: true },
  { long: 'cpubind', short: 'c', name: 'cpunodebind', arg: true }, // numactl's deprecated spelling
  { long: 'physcpubind', short: 'C', name: 'physcpubind', arg: true },
  { long: 'show', short: 's', name: 'show', arg: false },
  { long: 'hardware', short: 'H', name: 'hardware', arg: false },
  { long: 'all', short: 'a', name: 'all', arg: false },
  { long: 'balancing', short: 'b', name: 'balancing', arg: false },
  { long: 'help', short: 'h', name: 'help', arg: false },
  // numactl's shared memory and tmpfs file policies: recognised, to be refused by name.
  ...(
    [
      ['shm', 'S', true],
      ['file', 'f', true],
      ['shmid', 'I', true],
      ['length', 'L', true],
      ['offset', 'o', true],
      ['shmmode', 'M', true],
      ['strict', 't', false],
      ['huge', 'u', false],
      ['touch', 'T', false],
      ['dump', 'd', false],
      ['dump-nodes', 'D', false],
    ] as const
  ).map(([long, short, arg]) => ({ long, short, name: 'shm' as const, arg })),
];

/** The numactl options numakit run does not implement, as its --help lists them. */
export const REFUSED_SHM_OPTIONS = OPTIONS.filter((o) => o.name === 'shm').map((o) => ({
  long: o.long,
  short: o.short!,
  arg: o.arg,
}));

function findLong(name: string): Opt {
  const exact = OPTIONS.find((o) => o.long === name);
  if (exact) return exact;
  const prefixed = OPTIONS.filter((o) => o.long.startsWith(name));
  const distinct = new Set(prefixed.map((o) => o.name));
  if (prefixed.length === 0 || name === '') throw new UnknownOptionError('run', `--${name}`);
  if (distinct.size > 1)
    throw new RunArgsError(`option '--${name}' is ambiguous (${prefixed.map((o) => `--${o.long}`).join(', ')})`);
  return prefixed[0]!;
}

function findShort(letter: string): Opt {
  const opt = OPTIONS.find((o) => o.short === letter);
  if (!opt) throw new UnknownOptionError('run', `-${letter}`);
  return opt;
}

/** Splits `numakit run` arguments into options and the command. */
export function parseRunArgs(args: readonly string[]): RunArgs {
  const out: { -readonly [K in keyof RunArgs]: RunArgs[K] } = {
    all: false,
    balancing: false,
    show: false,
    hardware: false,
    help: false,
    command: [],
  };
  let memoryFlag: string | undefined;
  let lastNodeSpec: string | undefined;
  let sawSpec = false;

  const apply = (opt: Opt, flag: string, value: string | undefined): boolean => {
    if (opt.arg) {
      if (value === 'same' && opt.name !== 'physcpubind') {
        // numactl: "same" repeats the previous node specification.
        if (lastNodeSpec === undefined) throw new RunArgsError(`${flag} same: no earlier node specification`);
        value = lastNodeSpec;
      } else if (opt.name !== 'physcpubind') {
        lastNodeSpec = value;
      }
      sawSpec = true;
    }
    switch (opt.name) {
      case 'show':
        out.show = true;
        return false; // numactl shows at once; later arguments are not read
      case 'hardware':
        out.hardware = true;
        return true;
      case 'help':
        out.help = true;
        return false;
      case 'balancing':
        out.balancing = true;
        return true;
      case 'shm':
        throw new RunArgsError(
          `${flag}: numactl's shared memory and file policies (--shm, --file, --shmid, --length, --offset, --shmmode, --strict, --huge, --touch, --dump, --dump-nodes) are not implemented in numakit run; use numactl for them`,
        );
      case 'all':
        if (sawSpec) throw new RunArgsError('--all must come before every node and CPU specification');
        out.all = true;
        return true;
      case 'cpunodebind':
      case 'physcpubind':
        out.cpus = { kind: opt.name, spec: value! };
        return true;
      default:
        if (memoryFlag !== undefined) throw new RunArgsError(`conflicting policies: ${memoryFlag} and ${flag}`);
        memoryFlag = flag;
        out.memory = opt.name === 'localalloc' ? { kind: 'localalloc' } : { kind: opt.name, spec: value! };
        return true;
    }
  };

  let i = 0;
  parse: for (; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      i++;
      break;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const opt = findLong(eq < 0 ? a.slice(2) : a.slice(2, eq));
      const flag = `--${opt.long}`;
      let value: string | undefined;
      if (opt.arg) {
        value = eq >= 0 ? a.slice(eq + 1) : args[++i];
        if (value === undefined) throw new RunArgsError(`${flag} needs a value`);
      } else if (eq >= 0) {
        throw new RunArgsError(`${flag} takes no value`);
      }
      if (!apply(opt, flag, value)) return out;
      continue;
    }
    if (a.startsWith('-') && a.length > 1) {
      for (let k = 1; k < a.length; k++) {
        const opt = findShort(a[k]!);
        const flag = `-${opt.short}`;
        let value: string | undefined;
        if (opt.arg) {
          value = k + 1 < a.length ? a.slice(k + 1) : args[++i];
          if (value === undefined) throw new RunArgsError(`${flag} needs a value`);
        }
        if (!apply(opt, flag, value)) return out;
        if (opt.arg) continue parse;
      }
      continue;
    }
    break; // the first word that is not an option starts the command
  }
  out.command = args.slice(i);
  if (out.balancing && out.memory?.kind !== 'membind')
    throw new RunArgsError('--balancing goes with --membind (MPOL_F_NUMA_BALANCING applies to a bind policy)');
  return out;
}
