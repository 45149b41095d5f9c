// `numakit serve` once its options are parsed: decide who may connect, take a first reading
// (the CPU baseline, the topology, a doctor run started), listen, say where and to whom, and
// serve until SIGINT or SIGTERM, which close every connection (half-sent requests too) and end.
// SIGHUP re-reads --token-file (a rotated token, no restart); everything else is read at start.
import { hostname } from 'node:os';
import type { SysRoot } from '../sysfs/root.js';
import { appRoutes } from './app.js';
import { reloadToken } from './auth.js';
import { startHttpServer, type Limits, type RunningServer } from './http_server.js';
import { DEFAULT_LISTEN, parseListen } from './listen.js';
import { prepareListener } from './listener.js';
import { Scraper } from './scrape.js';

/** serve's options, as src/cli/commands/serve.ts reads them from the command line. */
export interface ServeOptions {
  readonly listen: string | undefined;
  readonly tokenFile: string | undefined;
  readonly webConfigFile: string | undefined;
  readonly insecurePublic: boolean;
  readonly top: number;
  readonly doctorIntervalMs: number;
  readonly nodeExporterNames: boolean;
}

export interface ServeEnv {
  readonly root: SysRoot;
  readonly out: (t: string) => void;
  readonly err: (t: string) => void;
  readonly signals: Pick<NodeJS.EventEmitter, 'once' | 'on' | 'off'>;
  /** Called once listening (tests use it to learn the port). */
  readonly onListening?: (s: RunningServer) => void;
  readonly limits?: Partial<Limits>;
  /** Paces a full garbage collection after each /metrics answer (src/runtime/heap_pace.ts); none in tests unless given. */
  readonly heap?: { afterPass(nowMs: number): unknown } | null;
}

/** Default scrape limit: under Prometheus's default 10 s scrape_timeout. */
export const SCRAPE_TIMEOUT_MS = 8000;

export async function runServe(o: ServeOptions, env: ServeEnv): Promise<number> {
  // Signals are handled from the start: a SIGTERM while starting closes as soon as it is up.
  const stop = stopSignal(env.signals);
  // SIGHUP from the start too (its default action ends the process): what it does once serving.
  const hup = { reload: () => 'ignored while starting' };
  const onHup = () => env.err(`numakit: serve: SIGHUP: ${hup.reload()}\n`);
  env.signals.on('SIGHUP', onHup);
  try {
    return await serveUntilStopped(o, env, stop.stopped, hup);
  } finally {
    stop.dispose();
    env.signals.off('SIGHUP', onHup);
  }
}

function stopSignal(signals: ServeEnv['signals']): { stopped: Promise<void>; dispose: () => void } {
  let dispose = () => {};
  const stopped = new Promise<void>((resolve) => {
    const stop = () => {
      dispose();
      resolve();
    };
    dispose = () => {
      signals.off('SIGINT', stop);
      signals.off('SIGTERM', stop);
    };
    signals.once('SIGINT', stop);
    signals.once('SIGTERM', stop);
  });
  return { stopped, dispose };
}

async function serveUntilStopped(
  o: ServeOptions,
  env: ServeEnv,
  stopped: Promise<void>,
  hup: { reload: () => string },
): Promise<number> {
  const listen = o.listen === undefined ? DEFAULT_LISTEN : parseListen(o.listen);
  const { access, web, token, described } = await prepareListener({
    listen,
    tokenFile: o.tokenFile,
    webConfigFile: o.webConfigFile,
    insecurePublic: o.insecurePublic,
    what: 'serve',
  });
  // NUMAKIT_SERVE_MAPS_TTL_MS: how long numa_maps readings are reused (bench/serve-scrape.mjs sets 0).
  const ttl = Number(process.env.NUMAKIT_SERVE_MAPS_TTL_MS);
  const scraper = new Scraper(env.root, {
    top: o.top,
    doctorIntervalMs: o.doctorIntervalMs,
    timeoutMs: SCRAPE_TIMEOUT_MS,
    doctor: true,
    log: env.err,
    ...(Number.isFinite(ttl) && ttl >= 0 ? { mapsTtlMs: ttl } : {}),
  });
  scraper.prime();
  const server = await startHttpServer({
    listen,
    token,
    web,
    what: 'serve',
    routes: appRoutes(scraper, {
      nodeExporterNames: o.nodeExporterNames,
      title: env.root.isReal ? hostname() : env.root.label,
      ...(env.heap ? { afterScrape: (nowMs: number) => env.heap?.afterPass(nowMs) } : {}),
    }),
    ...(env.limits ? { limits: env.limits } : {}),
    onError: (e) => env.err(`numakit: serve: ${(e as Error).message}\n`),
    onRefused: (line) => env.err(`numakit: ${line}\n`),
  });
  const from = env.root.isReal ? '' : ` (reading ${env.root.label})`;
  env.out(
    `numakit serve: ${server.scheme}://${server.address}/ (dashboard) and /metrics${from}; access: ${described}\n`,
  );
  env.onListening?.(server);
  hup.reload = () => reloadToken(access, server);
  await stopped;
  await Promise.all([server.close(), scraper.doctor.stop()]);
  return 0;
}
