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

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Reads one option after another (apply), then checks what they make together (finish). */
class RunArgsReader {
  readonly out: Mutable<RunArgs> = {
    all: false,
    balancing: false,
    show: false,
    hardware: false,
    help: false,
    command: [],
  };
  private memoryFlag: string | undefined;
  private lastNodeSpec: string | undefined;
  private sawSpec = false;
  private cpuFlag: string | undefined;
  // --shm/--file: how to attach (before it), then the steps on the range (after it).
  private readonly attach = { length: undefined as number | undefined, offset: 0, mode: 0o600, id: 0, huge: false };
  /** The first of --length/--offset/... given, for "without --shm". */
  private attachFlag: string | undefined;
  private shm: Mutable<ShmArgs> | undefined;
  private readonly steps: ShmStep[] = [];

  /** Takes one option; false when numactl stops reading there (--show, --help). */
  apply(opt: Opt, flag: string, value: string | undefined): boolean {
    if (opt.arg && !SHM_ARG_NAMES.has(opt.name)) value = this.nodeSpec(opt, flag, value);
    switch (opt.name) {
      case 'show':
        this.out.show = true;
        return false; // numactl shows at once; later arguments are not read
      case 'hardware':
        this.out.hardware = true;
        return true;
      case 'help':
        this.out.help = true;
        return false;
      case 'balancing':
        this.out.balancing = true;
        return true;
      case 'fallback':
        this.out.fallback = true;
        return true;
      case 'shm':
      case 'file':
        this.startShm(opt.name, flag, value!);
        return true;
      case 'length':
      case 'offset':
      case 'shmmode':
      case 'shmid':
      case 'huge':
        this.attachOption(opt.name, flag, value);
        return true;
      case 'strict':
      case 'touch':
      case 'dump':
      case 'dump-nodes':
        this.afterShm(flag);
        this.steps.push({ kind: opt.name });
        return true;
      case 'all':
        if (this.sawSpec) throw new RunArgsError('--all must come before every node and CPU specification');
        this.out.all = true;
        return true;
      case 'cpunodebind':
      case 'physcpubind':
        if (this.shm !== undefined)
          throw new RunArgsError(`${flag} with --${this.shm.kind}: a CPU binding has no meaning for shared memory`);
        this.cpuFlag = flag;
        this.out.cpus = { kind: opt.name, spec: value! };
        return true;
      default:
        this.memoryPolicy(opt.name, flag, value);
        return true;
    }
  }

  /** A node or CPU specification: numactl's "same" repeats the previous node specification. */
  private nodeSpec(opt: Opt, flag: string, value: string | undefined): string | undefined {
    this.sawSpec = true;
    if (opt.name === 'physcpubind') return value;
    if (value !== 'same') return (this.lastNodeSpec = value);
    if (this.lastNodeSpec === undefined) throw new RunArgsError(`${flag} same: no earlier node specification`);
    return this.lastNodeSpec;
  }

  private startShm(kind: 'shm' | 'file', flag: string, path: string): void {
    if (this.shm !== undefined) throw new RunArgsError(`${flag}: only one --shm or --file at a time`);
    if (this.memoryFlag !== undefined)
      throw new RunArgsError(
        `${this.memoryFlag} before ${flag}: give the policy after --shm/--file (it is set on the range)`,
      );
    if (this.cpuFlag !== undefined)
      throw new RunArgsError(`${this.cpuFlag} with ${flag}: a CPU binding has no meaning for shared memory`);
    if (path === '') throw new RunArgsError(`${flag} needs a path`);
    this.shm = { kind, path, ...this.attach, steps: this.steps };
    if (this.attach.length === undefined) delete this.shm.length;
  }

  /** --length, --offset, --shmmode, --shmid, --huge: how to attach, before --shm/--file. */
  private attachOption(name: Name, flag: string, value: string | undefined): void {
    if (this.shm !== undefined) throw new RunArgsError(`${flag} must come before --${this.shm.kind}`);
    this.attachFlag ??= flag;
    const a = this.attach;
    if (name === 'length') {
      a.length = parseMemsize(value!, flag);
      if (a.length === 0) throw new RunArgsError(`${flag} 0: the length must be more than 0`);
    } else if (name === 'offset') a.offset = parseMemsize(value!, flag);
    else if (name === 'shmmode') {
      if (!/^[0-7]{1,4}$/.test(value!)) throw new RunArgsError(`${flag} '${value}': not an octal mode like 0600`);
      a.mode = parseInt(value!, 8);
    } else if (name === 'shmid') {
      if (!/^\d+$/.test(value!)) throw new RunArgsError(`${flag} '${value}': not a number`);
      a.id = Number(value);
    } else a.huge = true;
  }

  private afterShm(flag: string): void {
    if (this.shm === undefined)
      throw new RunArgsError(`${flag} acts on shared memory: give --shm KEYFILE or --file PATH before it`);
  }

  /** The one memory policy: of the process, or a step on the shared memory range. */
  private memoryPolicy(name: Name, flag: string, value: string | undefined): void {
    if (this.memoryFlag !== undefined) throw new RunArgsError(`conflicting policies: ${this.memoryFlag} and ${flag}`);
    this.memoryFlag = flag;
    const memory: MemoryOption =
      name === 'localalloc' ? { kind: 'localalloc' } : { kind: name as PolicyKind, spec: value! };
    if (this.shm !== undefined) this.steps.push({ kind: 'policy', memory, flag });
    else this.out.memory = memory;
  }

  /** The command (the words after the options), and what the options mean together. */
  finish(command: string[]): RunArgs {
    const out = this.out;
    out.command = command;
    if (this.shm !== undefined) {
      if (command.length > 0)
        throw new RunArgsError(
          `--${this.shm.kind} sets a policy on shared memory and runs no command ('${command[0]}')`,
        );
      if (out.balancing) throw new RunArgsError(`--balancing applies to a process, not to --${this.shm.kind}`);
      if (out.fallback) throw new RunArgsError(`--fallback applies to a process, not to --${this.shm.kind}`);
      out.shm = this.shm;
      return out;
    }
    if (this.attachFlag !== undefined)
      throw new RunArgsError(`${this.attachFlag} goes with --shm KEYFILE or --file PATH`);
    if (out.balancing && out.memory?.kind !== 'membind')
      throw new RunArgsError('--balancing goes with --membind (MPOL_F_NUMA_BALANCING applies to a bind policy)');
    return out;
  }
}

/** Splits `numakit run` arguments into options and the command. */
export function parseRunArgs(args: readonly string[]): RunArgs {
  const r = new RunArgsReader();
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
      if (!r.apply(opt, flag, value)) return r.out;
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
        if (!r.apply(opt, flag, value)) return r.out;
        if (opt.arg) continue parse;
      }
      continue;
    }
    break; // the first word that is not an option starts the command
  }
  return r.finish(args.slice(i));
}
