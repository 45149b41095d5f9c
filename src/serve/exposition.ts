// Prometheus text exposition format 0.0.4: metric families built fresh at each scrape (the
// kernel's counters are read then, like client_golang's const metrics) and rendered to text.
// Pure. prom-client is not used here: its model is long-lived objects mutated by set/inc,
// and an exporter of kernel counters needs "these values, now" (series come and go with
// processes and nodes). Format: prometheus/docs content/docs/instrumenting/exposition_formats.md.

export type MetricType = 'gauge' | 'counter';

export interface Sample {
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Family {
  readonly name: string;
  readonly type: MetricType;
  readonly help: string;
  readonly samples: readonly Sample[];
}

export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export function family(name: string, type: MetricType, help: string, samples: readonly Sample[]): Family {
  return { name, type, help, samples };
}

/** One sample: `s(value, {node: '0'})`. */
export function s(value: number, labels: Record<string, string> = {}): Sample {
  return { labels, value };
}

function escapeHelp(t: string): string {
  return t.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function escapeValue(t: string): string {
  return t.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

export function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

function formatLabels(labels: Readonly<Record<string, string>>): string {
  const keys = Object.keys(labels);
  if (keys.length === 0) return '';
  return `{${keys.map((k) => `${k}="${escapeValue(labels[k]!)}"`).join(',')}}`;
}

/**
 * Renders families; throws on an invalid metric or label name (a programming error, caught by
 * tests). Families with no samples are left out; two families of one name are a bug too.
 */
export function renderExposition(families: readonly Family[]): string {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const f of families) {
    if (!NAME.test(f.name)) throw new Error(`invalid metric name '${f.name}'`);
    if (seen.has(f.name)) throw new Error(`metric family '${f.name}' emitted twice`);
    seen.add(f.name);
    if (f.samples.length === 0) continue;
    out.push(`# HELP ${f.name} ${escapeHelp(f.help)}`, `# TYPE ${f.name} ${f.type}`);
    for (const x of f.samples) {
      for (const k of Object.keys(x.labels))
        if (!LABEL.test(k) || k.startsWith('__')) throw new Error(`invalid label name '${k}' on ${f.name}`);
      out.push(`${f.name}${formatLabels(x.labels)} ${formatValue(x.value)}`);
    }
  }
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}
