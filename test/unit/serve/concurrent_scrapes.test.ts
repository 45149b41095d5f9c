// Scrapers that arrive together (HA Prometheus pairs, several dashboards, a federation) share one
// reading: a scrape runs on the event loop, so without that they queued and the last of 20 waited
// 20 scrape times (bench/soak.mjs measured 50 s in a loaded lab guest, past Prometheus's timeout).
// A reading is never older than the request it answers: serve_process brackets node_exporter's
// reading between two of ours, and a time-window cache once answered the second with the first.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { appRoutes, batchedScrape } from '../../../src/serve/app.js';
import { startHttpServer, type RunningServer } from '../../../src/serve/http_server.js';
import { type Scrape, Scraper } from '../../../src/serve/scrape.js';
import { OPTS, realisticFourNode } from './helpers.js';

describe('concurrent scrapes', () => {
  it('requests of one turn of the event loop share one reading; a request after an answer gets a new one', async () => {
    let scrapes = 0;
    const timeouts: number[] = [];
    const queued: (() => void)[] = [];
    const scrape = batchedScrape(
      (ms) => {
        timeouts.push(ms);
        return { n: ++scrapes } as unknown as Scrape;
      },
      (run) => void queued.push(run),
    );
    const together = [scrape(8000), scrape(3000), scrape(9000)];
    assert.equal(queued.length, 1, 'one reading is scheduled for the three');
    queued.shift()!();
    const [a, b, c] = await Promise.all(together);
    assert.equal(a, b);
    assert.equal(b, c);
    assert.deepEqual(timeouts, [3000], 'within the shortest timeout of the batch');
    const later = scrape(8000);
    queued.shift()!();
    assert.notEqual(await later, a, 'a request after the answer reads the machine again');
    assert.equal(scrapes, 2);
  });

  it('a scrape that throws rejects every request of its batch, and the next batch reads again', async () => {
    let fail = true;
    const scrape = batchedScrape(
      () => {
        if (fail) throw new Error('sysfs gone');
        return {} as unknown as Scrape;
      },
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
