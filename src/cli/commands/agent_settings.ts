// The agent's settings from raw values: the same keys for flags (--min-rss 64M) and the YAML
// config file (min-rss: 64M). Defaults, then the file, then flags. The file is validated with
// zod (unknown keys, wrong types) and its values with the parsers in src/cli/values.ts; every error is
// one line naming the file and the key.
import type { z as Z } from 'zod';
import { NumakitError, UsageError } from '../../model/errors.js';
import { DEFAULT_AGENT, type AgentConfig } from '../../agent/config.js';
import {
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

/** Every key, flag and config alike, and how it sets the config. */
export const KEYS: Readonly<Record<string, Setter>> = {
  interval: (c, v, w) => ({ ...c, intervalMs: parseDuration(num(v, w), w) }),
  'max-interval': (c, v, w) => ({ ...c, maxIntervalMs: parseDuration(num(v, w), w) }),
  'min-rss': (c, v, w) => ({ ...c, minRssBytes: parseSize(num(v, w), w) }),
  'min-cpu': (c, v, w) => ({ ...c, minCpu: parseNonNegative(num(v, w), w) }),
  include: (c, v, w) => ({ ...c, include: [...c.include, ...list(v).map((x) => parseRegex(x, w))] }),
  exclude: (c, v, w) => ({ ...c, exclude: [...c.exclude, ...list(v).map((x) => parseRegex(x, w))] }),
  'override-pins': (c, v, w) => ({ ...c, overridePins: bool(v, w) }),
  promote: (c, v, w) => ({ ...c, promote: bool(v, w) }),
  'min-gain': (c, v, w) => ({ ...c, minGain: parseFraction(num(v, w), w) }),
  cooldown: (c, v, w) => ({ ...c, cooldownMs: parseDuration(num(v, w), w) }),
  'max-migrate-mbps': (c, v, w) => ({ ...c, maxMigrateMbps: parseNonNegative(num(v, w), w) }),
  'max-migrate-cpu': (c, v, w) => ({ ...c, maxMigrateCpu: parseShare(num(v, w), w) }),
  strategy: (c, v, w) => ({ ...c, strategy: parseChoice(str(v, w), ['balance', 'consolidate'] as const, w) }),
  tune: (c, v, w) => ({ ...c, tune: parseChoice(str(v, w), ['threads', 'pages', 'both'] as const, w) }),
  unit: (c, v, w) => ({ ...c, unit: parseChoice(str(v, w), ['process', 'cgroup'] as const, w) }),
  granularity: (c, v, w) => ({ ...c, granularity: parseChoice(str(v, w), ['process', 'threads'] as const, w) }),
  'numa-balancing': (c, v, w) => ({ ...c, numaBalancing: parseChoice(str(v, w), ['off', 'keep'] as const, w) }),
  advise: (c, v, w) => ({ ...c, advise: bool(v, w) }),
  once: (c, v, w) => ({ ...c, once: bool(v, w) }),
  'log-format': (c, v, w) => ({ ...c, logFormat: parseChoice(str(v, w), ['text', 'json'] as const, w) }),
  'state-dir': (c, v, w) => ({ ...c, stateDir: str(v, w) }),
  metrics: (c, v, w) => ({ ...c, metrics: str(v, w) }),
  'metrics-token-file': (c, v, w) => ({ ...c, metricsTokenFile: str(v, w) }),
  'metrics-insecure-public': (c, v, w) => ({ ...c, metricsInsecurePublic: bool(v, w) }),
};

/** Applies raw values in order; `where` prefixes messages ("--" for flags, "FILE: " for a file). */
export function applySettings(
  base: AgentConfig,
  values: Readonly<Record<string, Raw | undefined>>,
  where: (key: string) => string,
): AgentConfig {
  let cfg = base;
  for (const [k, v] of Object.entries(values)) {
    if (v === undefined) continue;
    const set = KEYS[k];
    if (set === undefined) throw new UsageError(`${where(k)}: unknown setting`);
    cfg = set(cfg, v, where(k));
  }
  return cfg;
}

function schema(z: typeof Z) {
  const scalar = z.union([z.string(), z.number()]);
  const shape: Record<string, Z.ZodType> = {};
  for (const k of Object.keys(KEYS)) shape[k] = scalar;
  for (const k of ['include', 'exclude']) shape[k] = z.union([z.string(), z.array(z.string())]);
  for (const k of ['override-pins', 'promote', 'advise', 'once', 'metrics-insecure-public']) shape[k] = z.boolean();
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
        ? `unknown setting (known: ${Object.keys(KEYS).join(', ')})`
        : i.message.replace(/^Invalid input: /, '');
    throw new NumakitError(`${path}: ${key === '' ? 'expected a mapping of settings' : `'${key}'`}: ${why}`);
  }
  try {
    return applySettings(base, r.data as Record<string, Raw>, (k) => `${path}: '${k}'`);
  } catch (e) {
    throw e instanceof UsageError ? new NumakitError(e.message) : e;
  }
}
