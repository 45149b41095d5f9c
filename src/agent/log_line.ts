// One log line per decision: text ("2025-01-05T14:23:01.000Z moved pid 4242 (java): locality
// 0% -> 100%: threads to node 1 (tune both); 2 threads") or a JSON object with --log-format json.
// Pure.
import type { Decision } from '../policy/agent/types.js';
import type { ActOutcome, PutBack } from './act.js';

export type LogFormat = 'text' | 'json';

/** advised: --advise, nothing done. */
export type Outcome = ActOutcome | { readonly kind: 'advised' } | null;

/** The word for what happened: moved, partial, gone, failed, advised, or the skip reason. */
export function outcomeName(d: Decision, o: Outcome): string {
  if (d.kind === 'skip') return d.skip;
  return o === null ? 'move' : o.kind;
}

const mib = (b: number) => `${(b / 1048576).toFixed(0)} MiB`;

/** "96 MiB moved in 0.6 s (160 MB/s, 24 batches)" */
function rate(o: { bytes: number; migrateMs: number; batches: number }): string {
  const mbps = o.migrateMs > 0 ? `${(o.bytes / 1e6 / (o.migrateMs / 1000)).toFixed(0)} MB/s, ` : '';
  return `${mib(o.bytes)} moved in ${(o.migrateMs / 1000).toFixed(1)} s (${mbps}${o.batches} batch${o.batches === 1 ? '' : 'es'})`;
}

function detail(o: Outcome): string {
  if (o === null || o.kind === 'advised') return '';
  switch (o.kind) {
    case 'moved':
      return `; ${o.threads} thread(s)${o.bytes > 0 || o.batches > 0 ? `, ${rate(o)}` : ''}`;
    case 'partial':
      return `; ${o.threads} thread(s), ${rate(o)}, ${o.notMoved} page(s) not moved: ${o.why}`;
    case 'stopped':
      return `; ${o.threads} thread(s), stopped by a signal: ${rate(o)} of ${mib(o.plannedBytes)} (the pages stay where they are)`;
    case 'gone':
      return `; the process exited while ${o.step}`;
    case 'failed':
      return `; failed: ${o.message}${putBackText(o.putBack)}`;
  }
}

function putBackText(p: PutBack | undefined): string {
  if (p === undefined) return '';
  const still = p.failures.length > 0 ? `; could NOT put back ${p.failures.length}: ${p.failures.join('; ')}` : '';
  return `; put back the affinity of ${p.threads} thread(s) it had set${still}`;
}

export function renderLogLine(d: Decision, o: Outcome, at: Date, format: LogFormat): string {
  const name = outcomeName(d, o);
  if (format === 'text') {
    const verb = d.kind === 'move' && o?.kind === 'advised' ? 'would move' : name;
    const pidWord = d.unit?.pids.length === 1 ? 'pid' : 'pids';
    const pids = d.unit && d.unit.pids.length > 0 ? ` (${pidWord} ${d.unit.pids.join(',')})` : '';
    const who = d.unit ? `cgroup ${d.unit.cgroup}${pids}` : `pid ${d.pid} (${d.comm})`;
    return `${at.toISOString()} ${verb} ${who}: ${d.reason}${detail(o)}`;
  }
  const base: Record<string, unknown> = {
    time: at.toISOString(),
    pid: d.pid,
    comm: d.comm,
    ...(d.unit ? { cgroup: d.unit.cgroup, pids: d.unit.pids } : {}),
    outcome: name,
    reason: d.reason,
  };
  if (d.kind === 'move') {
    const p = d.placement;
    if (d.cpu !== undefined) base['cpu'] = round(d.cpu);
    Object.assign(base, {
      nodes: p.nodes,
      cpus: p.cpus,
      moveFrom: p.moveFrom,
      moveBytes: p.moveBytes,
      localityNow: round(p.localityNow),
      localityAfter: round(p.localityAfter),
    });
    if (p.split)
      Object.assign(base, {
        hotTids: p.split.hotTids,
        coldNodes: p.split.coldNodes,
        coldCpus: p.split.coldCpus,
        hotLocalityNow: round(p.split.hotLocalityNow),
        hotLocalityAfter: round(p.split.hotLocalityAfter),
      });
  } else {
    if (d.localityNow !== undefined) base['localityNow'] = round(d.localityNow);
    if (d.cpu !== undefined) base['cpu'] = round(d.cpu);
  }
  if (o !== null && o.kind !== 'advised')
    Object.assign(base, Object.fromEntries(Object.entries(o).filter(([k]) => k !== 'kind')));
  return JSON.stringify(base);
}

const round = (x: number) => Math.round(x * 1000) / 1000;
