// The routes of `numakit serve`: /metrics (Prometheus), and the dashboard with its JSON API.
// Every route is read-only and answers from a scrape; nothing here writes to the machine.
import type { IncomingMessage } from 'node:http';
import { CONTENT_TYPE, renderExposition, type Family } from './exposition.js';
import { connectionsAccepted, type Route } from './http_server.js';
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
  /**
   * Called once a /metrics answer is on its way (after the event loop's turn), with the monotonic
   * time: serve paces its full garbage collections there (src/runtime/heap_pace.ts).
   */
  readonly afterScrape?: (nowMs: number) => void;
}

/** Prometheus says how long it waits (X-Prometheus-Scrape-Timeout-Seconds): answer before that. */
export function scrapeTimeoutMs(req: IncomingMessage, defaultMs: number): number {
  const h = Number(req.headers['x-prometheus-scrape-timeout-seconds']);
  if (!Number.isFinite(h) || h <= 0) return defaultMs;
  return Math.max(100, Math.min(defaultMs, h * 1000 - 250));
}

/** How many turns of the event loop a batch of scrapes waits for more requests, at most. */
export const BATCH_MAX_TURNS = 256;

/**
 * A scrape runs on the event loop, so scrapes that arrive together queue behind each other: 20
 * scrapers at once waited up to 20 scrape times each (50 s in a loaded lab guest, past
 * Prometheus's 10 s timeout). Requests that arrive together share one reading, taken once a turn
 * of the loop has passed with no new request and no new connection (libuv accepts one connection
 * a turn and reads its request the turn after: those that came while a scrape ran trickle in over
 * as many turns), within the shortest of their timeouts; at most BATCH_MAX_TURNS turns of waiting.
 * No answer is older than its request: scrapes apart in time, even a millisecond apart
 * (Prometheus every 15 s, a test comparing two readings), each read the machine.
 */
export function batchedScrape(
  scrape: (timeoutMs: number) => Scrape,
  activity: () => number = connectionsAccepted,
  defer: (run: () => void) => void = setImmediate,
): (timeoutMs: number) => Promise<Scrape> {
  type Waiter = { timeoutMs: number; resolve: (s: Scrape) => void; reject: (e: unknown) => void };
  let batch: Waiter[] = [];
  let joined = 0;
  let seen = activity();
  let turns = 0;
  const turn = () => {
    const now = activity();
    const more = joined > 0 || now !== seen;
    joined = 0;
    seen = now;
    if (more && ++turns < BATCH_MAX_TURNS) return defer(turn);
    const waiters = batch;
    batch = [];
    try {
      const sc = scrape(Math.min(...waiters.map((w) => w.timeoutMs)));
      for (const w of waiters) w.resolve(sc);
    } catch (e) {
      for (const w of waiters) w.reject(e);
    }
  };
  return (timeoutMs) =>
    new Promise<Scrape>((resolve, reject) => {
      if (batch.length === 0) {
        turns = 0;
        defer(turn);
      } else joined++;
      batch.push({ timeoutMs, resolve, reject });
    });
}

export function metricsRoute(scraper: Scraper, o: AppOptions): Route {
  const scrape = batchedScrape((t) => scraper.scrape(t));
  let pacing = false;
  return async (req) => {
    const sc = await scrape(scrapeTimeoutMs(req, scraper.opts.timeoutMs));
    const body = renderExposition([...scrapeFamilies(sc, o), ...(o.extra?.() ?? [])]);
    // Once for a batch of concurrent scrapers, after their answers are written.
    if (o.afterScrape && !pacing) {
      pacing = true;
      setImmediate(() => {
        pacing = false;
        o.afterScrape?.(performance.now());
      });
    }
    return { type: CONTENT_TYPE, body };
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
