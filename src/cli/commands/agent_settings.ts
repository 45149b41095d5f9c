// The agent's settings from raw values: the same keys for flags (--min-rss 64M) and the YAML
// config file (min-rss: 64M), each declared once in AGENT_KEYS: the option the parser, --help
// and completion read (its allowed values as `choices`, its default from DEFAULT_AGENT, which
// holds the placement policy's DEFAULT_POLICY) and how it sets the config. Defaults, then the file, then flags. The file is validated with
// zod (unknown keys, wrong types) and its values with the parsers in src/cli/values.ts; every error is
// one line naming the file and the key.
import type { z as Z } from 'zod';
import { NumakitError, UsageError } from '../../model/errors.js';
import { DEFAULT_AGENT, MAX_INTERVAL_FACTOR, type AgentConfig } from '../../agent/config.js';
import type { OptionSpec } from '../options.js';
import { BUSY_MIGRATE_SHARE, TARGET_BATCH_MS } from '../../policy/agent/pace.js';
import { stateDirOption } from '../state_dir_option.js';
import {
  formatDuration,
  formatPercent,
  formatSize,
  parseChoice,
  parseDuration,
  parseFraction,
  parseNonNegative,
  parseRegex,
  parseShare,
  parseSize,
} from '../values.js';

/** A raw value: a flag's string, or what YAML gave (number, boolean, list of strings). */
export type Raw = string | number | boolean | readonly string[];

type Setter = (cfg: AgentConfig, v: Raw, what: string) => AgentConfig;

const str = (v: Raw, what: string): string => {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  throw new UsageError(`${what}: expected a single value`);
};
const num = (v: Raw, what: string): string | number => (typeof v === 'number' ? v : str(v, what));
const list = (v: Raw): readonly string[] => (Array.isArray(v) ? v : [String(v)]);
const bool = (v: Raw, what: string): boolean => {
  if (typeof v === 'boolean') return v;
  throw new UsageError(`${what}: expected true or false`);
};

/** A duration, or 0 (or 0s, 0ms, off): none. */
const durationOrZero = (v: Raw, what: string): number => {
  const raw = num(v, what);
  if (String(raw).trim() === 'off') return 0;
  return /^\s*0+(\.0*)?\s*(ms|s|m|h)?\s*$/.test(String(raw)) ? 0 : parseDuration(raw, what);
};

/** An agent key: its flag (and config file key), declared once: parser, --help, completion, and how it sets the config. */
interface AgentKey extends OptionSpec {
  readonly set: Setter;
}

const WHICH = 'which processes';
const HOW = 'how';
export const RUNNING = 'running';
/** The defaults --help shows: the agent's own, over the placement policy's (DEFAULT_POLICY). */
const D = DEFAULT_AGENT;

/** The allowed values of the keys that have a few. */
const TUNE = ['threads', 'pages', 'both'] as const;
const STRATEGY = ['balance', 'consolidate'] as const;
const UNIT = ['process', 'cgroup'] as const;
const GRANULARITY = ['threads', 'process'] as const;
const NUMA_BALANCING = ['off', 'keep'] as const;
const LOG_FORMAT = ['text', 'json'] as const;

/** Every key, flag and config file alike, in --help's order. */
export const AGENT_KEYS = {
  'min-rss': {
    type: 'string',
    value: 'SIZE',
    group: WHICH,
    help: `resident memory to be managed (default ${formatSize(D.minRssBytes)}; k/M/G binary units)`,
    set: (c, v, w) => ({ ...c, minRssBytes: parseSize(num(v, w), w) }),
  },
  'min-cpu': {
    type: 'string',
    value: 'CPUS',
    group: WHICH,
    help: `CPU use to be managed, in CPUs (default ${D.minCpu} = ${formatPercent(D.minCpu)} of one CPU)`,
    set: (c, v, w) => ({ ...c, minCpu: parseNonNegative(num(v, w), w) }),
  },
  'min-age': {
    type: 'string',
    value: 'DUR',
    group: WHICH,
    help: `age a busy process needs to be moved (default ${formatDuration(D.minAgeMs)}; 0 = none):\na short job ends before its move would pay`,
    set: (c, v, w) => ({ ...c, minAgeMs: durationOrZero(v, w) }),
  },
  include: {
    type: 'string',
    multiple: true,
    value: 'RE',
    group: WHICH,
    help: 'only processes whose comm or command line matches (repeatable)',
    set: (c, v, w) => ({ ...c, include: [...c.include, ...list(v).map((x) => parseRegex(x, w))] }),
  },
  exclude: {
    type: 'string',
    multiple: true,
    value: 'RE',
    group: WHICH,
    help: 'never processes whose comm or command line matches (repeatable)',
    set: (c, v, w) => ({ ...c, exclude: [...c.exclude, ...list(v).map((x) => parseRegex(x, w))] }),
  },
  'override-pins': {
    type: 'boolean',
    group: WHICH,
    help: 'also manage processes whose CPU affinity or memory policy was set by\nsomeone else (left alone by default). Never: kernel threads, PID 1, itself.',
    set: (c, v, w) => ({ ...c, overridePins: bool(v, w) }),
  },
  promote: {
    type: 'boolean',
    group: HOW,
    help: "also move memory from memory-only nodes (CXL, PMEM) to the CPU nodes it\nplaces a process on (by default it stays: tiering put it there); with\nkernel.numa_balancing's tiering mode (2) on, promotion is the kernel's",
    set: (c, v, w) => ({ ...c, promote: bool(v, w) }),
  },
  tune: {
    type: 'string',
    value: 'MODE',
    group: HOW,
    choices: TUNE,
    help: `threads (move threads to the memory), pages (move memory to the threads)\nor both (the cheaper of the two that fits); default ${D.tune}`,
    set: (c, v, w) => ({ ...c, tune: choice(v, w, TUNE) }),
  },
  strategy: {
    type: 'string',
    value: 'S',
    group: HOW,
    choices: STRATEGY,
    help: `balance (spread load) or consolidate (pack onto fewer nodes); default ${D.strategy}`,
    set: (c, v, w) => ({ ...c, strategy: choice(v, w, STRATEGY) }),
  },
  unit: {
    type: 'string',
    value: 'U',
    group: HOW,
    choices: UNIT,
    help: `process or cgroup (default ${D.unit}); cgroup: each cgroup v2 leaf (a pod's\ncontainer, a service) placed as one, within its cpuset, its memory per node\nfrom memory.numa_stat; --include/--exclude then match the cgroup's path.\nKubernetes Guaranteed pods with exclusive CPUs or nodes are never touched`,
    set: (c, v, w) => ({ ...c, unit: choice(v, w, UNIT) }),
  },
  granularity: {
    type: 'string',
    value: 'G',
    group: HOW,
    choices: GRANULARITY,
    help: `threads: when its hot threads (the busiest, most of its CPU) fit fewer\nnodes than the whole process, they go with the memory and the other threads\nto the spare CPUs of the nearest node; process: all threads of a process\ntogether; default ${D.granularity}`,
    set: (c, v, w) => ({ ...c, granularity: choice(v, w, GRANULARITY) }),
  },
  'min-gain': {
    type: 'string',
    value: 'F',
    group: HOW,
    help: `act only when locality would rise by at least this (default ${formatPercent(D.minGain)})`,
    set: (c, v, w) => ({ ...c, minGain: parseFraction(num(v, w), w) }),
  },
  cooldown: {
    type: 'string',
    value: 'DUR',
    group: HOW,
    help: `leave a process alone this long after acting on it (default ${formatDuration(D.cooldownMs)})`,
    set: (c, v, w) => ({ ...c, cooldownMs: parseDuration(num(v, w), w) }),
  },
  'max-migrate-mbps': {
    type: 'string',
    value: 'N',
    group: HOW,
    help: `global migration budget in MB/s (default ${D.maxMigrateMbps}; 0 = unlimited)`,
    set: (c, v, w) => ({ ...c, maxMigrateMbps: parseNonNegative(num(v, w), w) }),
  },
  'max-migrate-cpu': {
    type: 'string',
    value: 'F',
    group: HOW,
    help: `share of one CPU a page move may use, the kernel's copy included\n(default auto = a whole CPU while the machine has one idle, else ${formatPercent(BUSY_MIGRATE_SHARE)}).\nMoves go in batches of about ${TARGET_BATCH_MS} ms, paced to both budgets; SIGTERM stops one\nafter its current batch`,
    set: (c, v, w) => ({ ...c, maxMigrateCpu: String(v).trim() === 'auto' ? 'auto' : parseShare(num(v, w), w) }),
  },
  'numa-balancing': {
    type: 'string',
    value: 'M',
    group: HOW,
    choices: NUMA_BALANCING,
    help: `off (the kernel's AutoNUMA is disabled while the agent runs, restored on\nexit; its memory-tiering mode, 2, stays on) or keep; default ${D.numaBalancing}`,
    set: (c, v, w) => ({ ...c, numaBalancing: choice(v, w, NUMA_BALANCING) }),
  },
  interval: {
    type: 'string',
    value: 'DUR',
    group: RUNNING,
    help: `time between passes (default ${formatDuration(D.intervalMs)}): the shortest, when something needs doing`,
    set: (c, v, w) => ({ ...c, intervalMs: parseDuration(num(v, w), w) }),
  },
  'max-interval': {
    type: 'string',
    value: 'DUR',
    group: RUNNING,
    help: `while passes find nothing to do, the time between them grows by\n--interval up to this (default ${MAX_INTERVAL_FACTOR} x --interval; equal: never grows);\na new process may wait this long to be seen`,
    set: (c, v, w) => ({ ...c, maxIntervalMs: parseDuration(num(v, w), w) }),
  },
  watch: {
    type: 'string',
    value: 'DUR',
    group: RUNNING,
    help: `between passes, the kernel's process events wake the agent (none\nwhile no process starts; needs CAP_NET_ADMIN): a new process is looked at\nthis long after it starts, and this often while it is small, idle or young;\na large, busy one gets a pass at once (default 1s; 0: off, new processes\nthen wait for the next pass)`,
    set: (c, v, w) => ({ ...c, watchMs: durationOrZero(v, w) }),
  },
  advise: {
    type: 'boolean',
    group: RUNNING,
    help: 'change nothing: log what it would do and why',
    set: (c, v, w) => ({ ...c, advise: bool(v, w) }),
  },
  once: {
    type: 'boolean',
    group: RUNNING,
    help: "one pass (over one interval) and exit; its changes stay, journaled\n(numa_balancing is not touched); 'numakit agent restore' undoes them",
    set: (c, v, w) => ({ ...c, once: bool(v, w) }),
  },
  'log-format': {
    type: 'string',
    value: 'F',
    group: RUNNING,
    choices: LOG_FORMAT,
    help: `text or json (one line per decision with its reason); default ${D.logFormat}`,
    set: (c, v, w) => ({ ...c, logFormat: choice(v, w, LOG_FORMAT) }),
  },
  metrics: {
    type: 'string',
    value: 'ADDR',
    group: RUNNING,
    help: "serve Prometheus metrics at http://ADDR/metrics, with the dashboard of\n'numakit serve' and the agent's recent decisions at http://ADDR/\n(PORT or HOST:PORT; host 127.0.0.1 unless given)",
    set: (c, v, w) => ({ ...c, metrics: str(v, w) }),
  },
  'metrics-token-file': {
    type: 'string',
    value: 'FILE',
    complete: 'file',
    group: RUNNING,
    help: 'require this bearer token on the metrics endpoint',
    set: (c, v, w) => ({ ...c, metricsTokenFile: str(v, w) }),
  },
  'metrics-web-config-file': {
    type: 'string',
    value: 'FILE',
    complete: 'file',
    group: RUNNING,
    help: "the metrics endpoint's web configuration file, as serve's --web.config.file\n(TLS, client certificates, bcrypt basic_auth_users, headers; docs/serve.md)",
    set: (c, v, w) => ({ ...c, metricsWebConfigFile: str(v, w) }),
  },
  'metrics-insecure-public': {
    type: 'boolean',
    group: RUNNING,
    help: 'allow a non-loopback --metrics host without a token or credentials',
    set: (c, v, w) => ({ ...c, metricsInsecurePublic: bool(v, w) }),
  },
  'state-dir': {
    ...stateDirOption(),
    group: RUNNING,
    set: (c, v, w) => ({ ...c, stateDir: str(v, w) }),
  },
} as const satisfies Record<string, AgentKey>;

type KeyName = keyof typeof AGENT_KEYS;

/** A value of a key with `choices`: the flag's parser checked it already; a config file's is checked here. */
function choice<T extends string>(v: Raw, what: string, choices: readonly T[]): T {
  return parseChoice(str(v, what), choices, what);
}

/** Applies raw values in order; `where` prefixes messages ("--" for flags, "FILE: " for a file). */
export function applySettings(
  base: AgentConfig,
  values: Readonly<Record<string, Raw | undefined>>,
  where: (key: string) => string,
): AgentConfig {
  let cfg = base;
  for (const [k, v] of Object.entries(values)) {
    if (v === undefined) continue;
    const set = Object.hasOwn(AGENT_KEYS, k) ? AGENT_KEYS[k as KeyName].set : undefined;
    if (set === undefined) throw new UsageError(`${where(k)}: unknown setting`);
    cfg = set(cfg, v, where(k));
  }
  return cfg;
}

function schema(z: typeof Z) {
  const scalar = z.union([z.string(), z.number()]);
  const shape: Record<string, Z.ZodType> = {};
  for (const [k, spec] of Object.entries(AGENT_KEYS) as [string, AgentKey][])
    shape[k] =
      spec.type === 'boolean'
        ? z.boolean()
        : spec.multiple === true
          ? z.union([z.string(), z.array(z.string())])
          : scalar;
  return z.strictObject(shape).partial();
}

/** Parses a YAML config file's text into settings over `base`. */
export async function parseConfigFile(
  text: string,
  path: string,
  base: AgentConfig = DEFAULT_AGENT,
): Promise<AgentConfig> {
  const [{ parse }, { z }] = await Promise.all([import('yaml'), import('zod')]);
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (e) {
    throw new NumakitError(`${path}: not valid YAML (${(e as Error).message.split('\n')[0]})`);
  }
  const r = schema(z).safeParse(doc ?? {});
  if (!r.success) {
    const i = r.error.issues[0]!;
    const key = i.code === 'unrecognized_keys' ? (i as { keys: string[] }).keys.join(', ') : i.path.join('.');
    const why =
      i.code === 'unrecognized_keys'
        ? `unknown setting (known: ${Object.keys(AGENT_KEYS).join(', ')})`
        : i.message.replace(/^Invalid input: /, '');
    throw new NumakitError(`${path}: ${key === '' ? 'expected a mapping of settings' : `'${key}'`}: ${why}`);
  }
  try {
    return applySettings(base, r.data as Record<string, Raw>, (k) => `${path}: '${k}'`);
  } catch (e) {
    throw e instanceof UsageError ? new NumakitError(e.message) : e;
  }
}
