// The routes of `numakit serve`: /metrics (Prometheus), and the dashboard with its JSON API.
// Every route is read-only and answers from a scrape; nothing here writes to the machine.
import type { IncomingMessage } from 'node:http';
import { CONTENT_TYPE, renderExposition, type Family } from './exposition.js';
import type { Route } from './http_server.js';
import { scrapeFamilies } from './metrics.js';
import type { Scrape, Scraper } from './scrape.js';
import { assetRoutes } from './assets.js';
import { type AgentStatus, liveJson, topologyJson } from './live.js';
import { SVG_STYLE } from '../render/topo_svg.js';

export interface AppOptions {
  readonly nodeExporterNames: boolean;
  /** More families (the agent's, when it serves). */
  readonly extra?: () => Family[];
  /** The agent serving this dashboard (agent --metrics): its pid and recent log lines. */
  readonly agent?: () => AgentStatus;
  /** What the dashboard calls the machine: its host name, or the snapshot's label. */
  readonly title: string;
}

/** Prometheus says how long it waits (X-Prometheus-Scrape-Timeout-Seconds): answer before that. */
export function scrapeTimeoutMs(req: IncomingMessage, defaultMs: number): number {
  const h = Number(req.headers['x-prometheus-scrape-timeout-seconds']);
  if (!Number.isFinite(h) || h <= 0) return defaultMs;
  return Math.max(100, Math.min(defaultMs, h * 1000 - 250));
}

/** Concurrent scrapes share one reading at most this old, and at least this long after it ended (below: why). */
export const COALESCE_MAX_MS = 1000;
export const COALESCE_MIN_MS = 100;

/**
 * A scrape runs on the event loop, so scrapes that arrive together queue behind each other: 20
 * scrapers at once waited up to 20 scrape times each (50 s in a loaded lab guest, past
 * Prometheus's 10 s timeout). A request answered within one scrape time of the end of the last
 * scrape (at least 100 ms: a fast scrape ends before the next request is parsed; at most a
 * second) was waiting behind it: it gets that reading, which is as fresh as its wait. Scrapes
 * apart in time (Prometheus every 15 s) each read the machine.
 */
export function coalescedScrape(
  scrape: (timeoutMs: number) => Scrape,
  clock: () => number = () => performance.now(),
): (timeoutMs: number) => Scrape {
  let last: Scrape | null = null;
  let endedAt = -Infinity;
  let took = 0;
  return (timeoutMs) => {
    const start = clock();
    if (last !== null && start - endedAt <= Math.min(Math.max(took, COALESCE_MIN_MS), COALESCE_MAX_MS)) return last;
    last = scrape(timeoutMs);
    endedAt = clock();
    took = endedAt - start;
    return last;
  };
}

export function metricsRoute(scraper: Scraper, o: AppOptions): Route {
  const scrape = coalescedScrape((t) => scraper.scrape(t));
  return (req) => {
    const sc = scrape(scrapeTimeoutMs(req, scraper.opts.timeoutMs));
    return { type: CONTENT_TYPE, body: renderExposition([...scrapeFamilies(sc, o), ...(o.extra?.() ?? [])]) };
  };
}

const json = (v: object) => ({ type: 'application/json; charset=utf-8', body: JSON.stringify(v) });

/**
 * The dashboard polls every 2 s and may be open in several browsers: one scrape serves them all
 * for a second. Aged on the monotonic clock: with the wall clock, a step back of an hour served
 * the same scrape for an hour.
 */
export function recentScrape(scraper: Scraper, maxAgeMs = 1000): () => Scrape {
  let last: Scrape | null = null;
  let takenAt = 0;
  return () => {
    const now = performance.now();
    if (last === null || now - takenAt > maxAgeMs) {
      last = scraper.scrape();
      takenAt = now;
    }
    return last;
  };
}

export function appRoutes(scraper: Scraper, o: AppOptions): Map<string, Route> {
  const recent = recentScrape(scraper);
  return new Map<string, Route>([
    ['/metrics', metricsRoute(scraper, o)],
    ...assetRoutes(),
    ['/topology.css', () => ({ type: 'text/css; charset=utf-8', body: SVG_STYLE })],
    ['/api/topology', () => json(topologyJson(recent(), o.title))],
    ['/api/live', () => json(liveJson(recent(), o.agent?.() ?? null, { snapshot: !scraper.root.isReal }))],
  ]);
}
