// Scrapers that arrive together (HA Prometheus pairs, several dashboards, a federation) share one
// reading: a scrape runs on the event loop, so without that they queued and the last of 20 waited
// 20 scrape times (bench/soak.mjs measured 50 s in a loaded lab guest, past Prometheus's timeout).
// A reading is never older than the request it answers: serve_process brackets node_exporter's
// reading between two of ours, and a time-window cache once answered the second with the first.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { appRoutes, BATCH_MAX_TURNS, batchedScrape } from '../../../src/serve/app.js';
import { startHttpServer, type RunningServer } from '../../../src/serve/http_server.js';
import { type Scrape, Scraper } from '../../../src/serve/scrape.js';
import { OPTS, realisticFourNode } from './helpers.js';

describe('concurrent scrapes', () => {
  /** A scrape that counts itself and a loop whose turns the test runs one by one. */
  function harness() {
    const h = { scrapes: 0, timeouts: [] as number[], queued: [] as (() => void)[], accepted: 0 };
    const scrape = batchedScrape(
      (ms) => {
        h.timeouts.push(ms);
        return { n: ++h.scrapes } as unknown as Scrape;
      },
      () => h.accepted,
      (run) => void h.queued.push(run),
    );
    /** Runs the loop's turns until nothing is deferred; returns how many. */
    const settle = () => {
      let turns = 0;
      for (; h.queued.length > 0; turns++) h.queued.shift()!();
      return turns;
    };
    return { h, scrape, settle };
  }

  it('requests that arrive together share one reading, within the shortest timeout; a later request reads again', async () => {
    const { h, scrape, settle } = harness();
    const together = [scrape(8000), scrape(3000), scrape(9000)];
    assert.equal(h.queued.length, 1, 'one reading is scheduled for the three');
    settle();
    const [a, b, c] = await Promise.all(together);
    assert.equal(a, b);
    assert.equal(b, c);
    assert.deepEqual(h.timeouts, [3000], 'within the shortest timeout of the batch');
    const later = scrape(8000);
    settle();
    assert.notEqual(await later, a, 'a request after the answer reads the machine again');
    assert.equal(h.scrapes, 2);
  });

  it('the batch waits while requests or connections keep coming, one a turn (as libuv accepts them), and no longer', async () => {
    const { h, scrape, settle } = harness();
    const all = [scrape(8000)];
    // Turn by turn: a connection accepted, then its request read the turn after.
    for (let i = 0; i < 5; i++) {
      h.accepted++;
      h.queued.shift()!();
      assert.equal(h.scrapes, 0, `turn ${i}: a connection came, so more may follow`);
      all.push(scrape(8000));
      h.queued.shift()!();
      assert.equal(h.scrapes, 0, `turn ${i}: a request joined`);
    }
    assert.equal(settle(), 1, 'a quiet turn: the reading is taken');
    assert.equal(h.scrapes, 1);
    assert.equal(new Set(await Promise.all(all)).size, 1, 'all six got the one reading');
  });

  it('a flood of requests waits at most BATCH_MAX_TURNS turns', () => {
    const { h, scrape } = harness();
    void scrape(1000);
    let turns = 0;
    while (h.queued.length > 0 && turns < 10_000) {
      h.accepted++;
      h.queued.shift()!();
      turns++;
    }
    assert.equal(h.scrapes, 1);
    assert.equal(turns, BATCH_MAX_TURNS);
  });

  it('a scrape that throws rejects every request of its batch, and the next batch reads again', async () => {
    let fail = true;
    const scrape = batchedScrape(
      () => {
        if (fail) throw new Error('sysfs gone');
        return {} as unknown as Scrape;
      },
      () => 0,
      (run) => queueMicrotask(run),
    );
    const r = await Promise.allSettled([scrape(1000), scrape(1000)]);
    assert.deepEqual(
      r.map((x) => x.status),
      ['rejected', 'rejected'],
    );
    fail = false;
    await scrape(1000);
  });

  describe('20 scrapers at once on serve', () => {
    const fx = realisticFourNode();
    let srv: RunningServer;
    let scrapes = 0;
    let marker: string;
    before(async () => {
      marker = join(mkdtempSync(join(tmpdir(), 'numakit-scrapes-')), 'sent');
      const scraper = new Scraper(fx.root, OPTS);
      const real = scraper.scrape.bind(scraper);
      // The first scrape holds the event loop (as a big machine's does) until the other 19
      // requests are in the kernel's socket buffers, whatever the host's load: they arrive
      // together behind it, deterministically.
      scraper.scrape = (ms?: number) => {
        if (scrapes++ === 0) {
          const until = performance.now() + 20_000;
          while (!existsSync(marker) && performance.now() < until);
        }
        return real(ms);
      };
      srv = await startHttpServer({
        listen: { host: '127.0.0.1', port: 0 },
        token: null,
        what: 'serve',
        routes: appRoutes(scraper, { nodeExporterNames: true, title: 'test' }),
      });
    });
    after(async () => {
      await srv.close();
      fx.remove();
    });

    it('the requests that arrived during a scrape get one reading together, each a whole answer', async () => {
      // The scrapers are another process, as Prometheus is: this one's event loop only serves.
      // One request starts the held scrape; 19 more are written while it runs, then the marker.
      const [host, port] = srv.address.split(':');
      const script = `
const net = require('node:net'), fs = require('node:fs');
const get = () => new Promise((resolve) => {
  const s = net.connect(${port}, '${host}', () => s.write('GET /metrics HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n'));
  let body = '';
  s.on('data', (d) => (body += d));
  s.on('end', () => resolve(body));
  s.on('error', (e) => resolve(String(e)));
  return s;
});
const first = get();
setTimeout(() => {
  let written = 0;
  const rest = Array.from({ length: 19 }, () => new Promise((resolve) => {
    const s = net.connect(${port}, '${host}', () =>
      s.write('GET /metrics HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n', () => {
        if (++written === 19) fs.writeFileSync(${JSON.stringify(marker)}, '');
      }));
    let body = '';
    s.on('data', (d) => (body += d));
    s.on('end', () => resolve(body));
    s.on('error', (e) => resolve(String(e)));
  }));
  Promise.all([first, ...rest]).then((b) => console.log(JSON.stringify(b.map((x) => [x.includes('numakit_scrape_duration_seconds'), x.includes('process_open_fds')]))));
}, 200);`;
      const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => void (out += d));
      await new Promise((r) => child.on('close', r));
      const whole = JSON.parse(out) as [boolean, boolean][];
      assert.equal(whole.length, 20);
      assert.ok(
        whole.every(([a, b]) => a && b),
        out,
      );
      assert.ok(existsSync(marker), 'the 19 were written while the first scrape ran');
      assert.equal(scrapes, 2, `${scrapes} scrapes for 20 requests: the held one, and one for the 19 behind it`);
    });
  });
});
