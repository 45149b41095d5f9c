// The argument list of `numakit run`, read like numactl's getopt_long("+..."): options
// until "--" or the first word that is not an option, which starts the command. Long
// options take "=VALUE" or the next word and may be shortened to a unique prefix; short
// ones take the rest of the word ("-iall") or the next word ("-i all"). Pure.
//
// With --shm KEYFILE or --file PATH (numactl's shared memory and file policies) there is no
// command: the options are steps in order, as numactl runs them: --length, --offset,
// --shmmode, --shmid and --huge say how to attach and come before --shm/--file; the policy,
// --strict, --touch, --dump and --dump-nodes come after it and act on the attached range.
import { UnknownOptionError, UsageError } from '../../model/errors.js';
import type { MemoryOption, PolicyKind, RunArgs, ShmArgs, ShmStep } from '../../model/run_args.js';

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
  | 'fallback'
  | 'shm'
  | 'file'
  | 'shmid'
  | 'length'
  | 'offset'
  | 'shmmode'
  | 'strict'
  | 'huge'
  | 'touch'
  | 'dump'
  | 'dump-nodes';

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
  { long: 'fallback', name: 'fallback', arg: false },
  { long: 'help', short: 'h', name: 'help', arg: false },
  // numactl's shared memory and tmpfs/hugetlbfs file policies.
  { long: 'shm', short: 'S', name: 'shm', arg: true },
  { long: 'file', short: 'f', name: 'file', arg: true },
  { long: 'shmid', short: 'I', name: 'shmid', arg: true },
  { long: 'length', short: 'L', name: 'length', arg: true },
  { long: 'offset', short: 'o', name: 'offset', arg: true },
  { long: 'shmmode', short: 'M', name: 'shmmode', arg: true },
  { long: 'strict', short: 't', name: 'strict', arg: false },
  { long: 'huge', short: 'u', name: 'huge', arg: false },
  { long: 'touch', short: 'T', name: 'touch', arg: false },
  { long: 'dump', short: 'd', name: 'dump', arg: false },
  { long: 'dump-nodes', short: 'D', name: 'dump-nodes', arg: false },
];

const SHM_ARG_NAMES: ReadonlySet<Name> = new Set(['shm', 'file', 'shmid', 'length', 'offset', 'shmmode']);

/**
 * A --length or --offset: bytes, decimal or 0x hex, with an optional k, m, g or t suffix
 * (binary units, as numactl's memsize()).
 */
export function parseMemsize(text: string, flag: string): number {
  const m = /^(0[xX][0-9a-fA-F]+|\d+)([kKmMgGtT]?)$/.exec(text);
  if (m === null) throw new RunArgsError(`${flag} '${text}': not a size (a number of bytes with k, m, g or t)`);
  const shift = { '': 0, k: 10, m: 20, g: 30, t: 40 }[m[2]!.toLowerCase()]!;
  const bytes = Number(m[1]) * 2 ** shift;
  if (!Number.isSafeInteger(bytes)) throw new RunArgsError(`${flag} '${text}': too large`);
  return bytes;
}

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
  let cpuFlag: string | undefined;
  // --shm/--file: how to attach (before it), then the steps on the range (after it).
  const attach = { length: undefined as number | undefined, offset: 0, mode: 0o600, id: 0, huge: false };
  let attachFlag: string | undefined; // the first of --length/--offset/... given, for "without --shm"
  let shm: { -readonly [K in keyof ShmArgs]: ShmArgs[K] } | undefined;
  const steps: ShmStep[] = [];
  const beforeShm = (flag: string) => {
    if (shm !== undefined) throw new RunArgsError(`${flag} must come before --${shm.kind}`);
    attachFlag ??= flag;
  };
  const afterShm = (flag: string) => {
    if (shm === undefined)
      throw new RunArgsError(`${flag} acts on shared memory: give --shm KEYFILE or --file PATH before it`);
  };

  const apply = (opt: Opt, flag: string, value: string | undefined): boolean => {
    if (opt.arg && !SHM_ARG_NAMES.has(opt.name)) {
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
      case 'fallback':
        out.fallback = true;
        return true;
      case 'shm':
      case 'file':
        if (shm !== undefined) throw new RunArgsError(`${flag}: only one --shm or --file at a time`);
        if (memoryFlag !== undefined)
          throw new RunArgsError(
            `${memoryFlag} before ${flag}: give the policy after --shm/--file (it is set on the range)`,
          );
        if (cpuFlag !== undefined)
          throw new RunArgsError(`${cpuFlag} with ${flag}: a CPU binding has no meaning for shared memory`);
        if (value === '') throw new RunArgsError(`${flag} needs a path`);
        shm = { kind: opt.name, path: value!, ...attach, steps };
        if (attach.length === undefined) delete shm.length;
        return true;
      case 'length':
        beforeShm(flag);
        attach.length = parseMemsize(value!, flag);
        if (attach.length === 0) throw new RunArgsError(`${flag} 0: the length must be more than 0`);
        return true;
      case 'offset':
        beforeShm(flag);
        attach.offset = parseMemsize(value!, flag);
        return true;
      case 'shmmode':
        beforeShm(flag);
        if (!/^[0-7]{1,4}$/.test(value!)) throw new RunArgsError(`${flag} '${value}': not an octal mode like 0600`);
        attach.mode = parseInt(value!, 8);
        return true;
      case 'shmid':
        beforeShm(flag);
        if (!/^\d+$/.test(value!)) throw new RunArgsError(`${flag} '${value}': not a number`);
        attach.id = Number(value);
        return true;
      case 'huge':
        beforeShm(flag);
        attach.huge = true;
        return true;
      case 'strict':
      case 'touch':
      case 'dump':
      case 'dump-nodes':
        afterShm(flag);
        steps.push({ kind: opt.name });
        return true;
      case 'all':
        if (sawSpec) throw new RunArgsError('--all must come before every node and CPU specification');
        out.all = true;
        return true;
      case 'cpunodebind':
      case 'physcpubind':
        if (shm !== undefined)
          throw new RunArgsError(`${flag} with --${shm.kind}: a CPU binding has no meaning for shared memory`);
        cpuFlag = flag;
        out.cpus = { kind: opt.name, spec: value! };
        return true;
      default: {
        if (memoryFlag !== undefined) throw new RunArgsError(`conflicting policies: ${memoryFlag} and ${flag}`);
        memoryFlag = flag;
        const memory: MemoryOption =
          opt.name === 'localalloc' ? { kind: 'localalloc' } : { kind: opt.name, spec: value! };
        if (shm !== undefined) steps.push({ kind: 'policy', memory, flag });
        else out.memory = memory;
        return true;
      }
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
  if (shm !== undefined) {
    if (out.command.length > 0)
      throw new RunArgsError(`--${shm.kind} sets a policy on shared memory and runs no command ('${out.command[0]}')`);
    if (out.balancing) throw new RunArgsError(`--balancing applies to a process, not to --${shm.kind}`);
    if (out.fallback) throw new RunArgsError(`--fallback applies to a process, not to --${shm.kind}`);
    out.shm = shm;
    return out;
  }
  if (attachFlag !== undefined) throw new RunArgsError(`${attachFlag} goes with --shm KEYFILE or --file PATH`);
  if (out.balancing && out.memory?.kind !== 'membind')
    throw new RunArgsError('--balancing goes with --membind (MPOL_F_NUMA_BALANCING applies to a bind policy)');
  return out;
}
