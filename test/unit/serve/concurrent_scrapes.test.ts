// Scrapers that arrive together (HA Prometheus pairs, several dashboards, a federation) share one
// reading: a scrape runs on the event loop, so without that they queued and the last of 20 waited
// 20 scrape times (bench/soak.mjs measured 50 s in a loaded lab guest, past Prometheus's timeout).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { COALESCE_MAX_MS, appRoutes, coalescedScrape } from '../../../src/serve/app.js';
import { startHttpServer, type RunningServer } from '../../../src/serve/http_server.js';
import { type Scrape, Scraper } from '../../../src/serve/scrape.js';
import { OPTS, realisticFourNode } from './helpers.js';

describe('concurrent scrapes', () => {
  it('a request within one scrape time of the last scrape gets it; later ones read again; the window is at most a second', () => {
    let t = 0;
    let scrapes = 0;
    let takes = 300;
    const scrape = coalescedScrape(
      () => {
        scrapes++;
        t += takes;
        return { at: t } as unknown as Scrape;
      },
      () => t,
    );
    const first = scrape(8000);
    t += 5;
    assert.equal(scrape(8000), first, 'queued behind it: the same reading');
    assert.equal(scrapes, 1);
    t += 400;
    scrape(8000);
    assert.equal(scrapes, 2, 'after more than a scrape time: a new reading');
    takes = 5000;
    t += 2000;
    scrape(8000);
    t += COALESCE_MAX_MS + 1;
    scrape(8000);
    assert.equal(scrapes, 4, 'a slow scrape is not reused for more than a second');
  });

  describe('20 scrapers at once on serve', () => {
    const fx = realisticFourNode();
    let srv: RunningServer;
    let scrapes = 0;
    before(async () => {
      const scraper = new Scraper(fx.root, OPTS);
      const real = scraper.scrape.bind(scraper);
      // As slow as a scrape of a big machine (300 ms), so that the requests queue behind it.
      scraper.scrape = (ms?: number) => {
        scrapes++;
        const until = performance.now() + 300;
        while (performance.now() < until);
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

    it('all get a whole answer from a few readings, not one each', async () => {
      // The scrapers are another process, as Prometheus is: this one's event loop only serves.
      const script = `Promise.all(Array.from({ length: 20 }, () => fetch('http://${srv.address}/metrics').then((r) => r.text()))).then((b) => console.log(JSON.stringify(b.map((x) => [x.includes('numakit_scrape_duration_seconds'), x.includes('process_open_fds')]))))`;
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
      assert.ok(scrapes <= 4, `${scrapes} scrapes for 20 requests`);
    });
  });
});
