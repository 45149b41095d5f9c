// The queries Grafana and Prometheus would run from contrib/: each dashboard panel's PromQL
// with the dashboard's variables set as Grafana sets them, and each alert rule's expression
// read so that it returns its series whether or not it fires. Used by contrib.test.ts (tables)
// and by the lab test that runs them against a real Prometheus (test/lab/dashboard.lab.test.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { REPO_DIR } from '../../helpers/cli.js';
import { metricNames } from './promql_names.js';

export interface Panel {
  readonly id: number;
  readonly type: string;
  readonly title: string;
  readonly description?: string;
  readonly targets?: readonly { refId: string; expr: string }[];
}

export interface Dashboard {
  readonly __inputs?: readonly { name: string }[];
  readonly panels: readonly Panel[];
  readonly templating: { list: readonly { name: string; type: string; query: string | object }[] };
}

export interface Rule {
  readonly alert: string;
  readonly expr: string;
}

export const readDashboard = (): Dashboard =>
  JSON.parse(readFileSync(join(REPO_DIR, 'contrib/grafana/numakit.json'), 'utf8')) as Dashboard;

export const readRules = (): Rule[] =>
  (
    parseYaml(readFileSync(join(REPO_DIR, 'contrib/prometheus/numakit-alerts.yml'), 'utf8')) as {
      groups: { rules: Rule[] }[];
    }
  ).groups.flatMap((g) => g.rules);

/** What a panel needs beyond numakit serve's defaults, from the series it reads. */
export type Need = 'processes' | 'agent' | 'devices';
/** The words a panel's description must use for each need. */
export const NEED_TEXT: Readonly<Record<Need, string>> = {
  processes: 'Needs per-process metrics',
  agent: 'Needs numakit agent --metrics',
  devices: 'Needs devices with a NUMA node',
};
const NEED_PREFIX: Readonly<Record<Need, string>> = {
  processes: 'numakit_process_',
  agent: 'numakit_agent_',
  devices: 'numakit_device_',
};

export function panelNeeds(p: Panel): Need[] {
  const names = (p.targets ?? []).flatMap((t) => metricNames(t.expr));
  return (Object.keys(NEED_PREFIX) as Need[]).filter((n) => names.some((m) => m.startsWith(NEED_PREFIX[n])));
}

/** Grafana's escaping of a variable's value inside a regex matcher (prometheusSpecialRegexEscape). */
export function grafanaRegexEscape(v: string): string {
  return v.replace(/\\/g, '\\\\\\\\').replace(/[$^*{}[\]'+?.()|]/g, '\\\\$&');
}

/**
 * A panel query as Grafana sends it: $job, $instance (one value each, regex-escaped) and
 * $__rate_interval = max($__interval + scrape interval, 4 x scrape interval), with the data
 * source's scrape interval (Grafana's default 15 s).
 */
export function grafanaQuery(
  expr: string,
  vars: { job: string; instance: string },
  o: { scrapeIntervalS?: number; intervalS?: number } = {},
): string {
  const scrape = o.scrapeIntervalS ?? 15;
  const interval = o.intervalS ?? 15;
  return expr
    .replace(/\$__rate_interval\b/g, `${Math.max(interval + scrape, 4 * scrape)}s`)
    .replace(/\$__interval\b/g, `${interval}s`)
    .replace(/\$\{?(job|instance)\}?/g, (_m, v: 'job' | 'instance') => grafanaRegexEscape(vars[v]));
}

/**
 * An alert expression that returns the series it compares whether or not it fires: each
 * comparison outside label matchers and strings read with `bool` (0 or 1 instead of
 * filtering), and `offset` dropped (a fresh Prometheus has no history 30 minutes back).
 */
export function everySeries(expr: string): string {
  let out = '';
  let braces = 0;
  let quote: string | null = null;
  for (let i = 0; i < expr.length; i++) {
    const c = expr[i]!;
    if (quote !== null) {
      out += c;
      if (c === '\\') out += expr[++i] ?? '';
      else if (c === quote) quote = null;
      continue;
    }
    if (c === '"' || c === "'" || c === '`') quote = c;
    else if (c === '{') braces++;
    else if (c === '}') braces--;
    const op = braces === 0 ? /^(==|!=|>=|<=|>|<)/.exec(expr.slice(i))?.[1] : undefined;
    if (op === undefined) {
      out += c;
      continue;
    }
    i += op.length - 1;
    out += /^\s*bool\b/.test(expr.slice(i + 1)) ? op : `${op} bool`;
  }
  return out.replace(/\s+offset\s+\d+[smhdwy]/g, '');
}
