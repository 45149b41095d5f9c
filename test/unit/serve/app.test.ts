// The dashboard's routes served in-process: the page and its files, the topology picture as
// JSON (SVG without inline style, for the page's strict CSP), the live values, the agent's
// section only when an agent serves, and one scrape shared by polls within a second.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { appRoutes } from '../../../src/serve/app.js';
import { startHttpServer, type RunningServer } from '../../../src/serve/http_server.js';
import { Scraper } from '../../../src/serve/scrape.js';
import { OPTS, realisticFourNode } from './helpers.js';

describe('serve app routes', () => {
  let fx: ReturnType<typeof realisticFourNode>;
  let srv: RunningServer;
  let scrapes = 0;
  const paced: { at: number; scrapes: number }[] = [];
  const get = async (p: string) => fetch(`http://${srv.address}${p}`);
  before(async () => {
    fx = realisticFourNode();
    const scraper = new Scraper(fx.root, OPTS);
    const real = scraper.scrape.bind(scraper);
    scraper.scrape = (ms?: number) => {
      scrapes++;
      return real(ms);
    };
    srv = await startHttpServer({
      listen: { host: '127.0.0.1', port: 0 },
      token: null,
      what: 'test',
      routes: appRoutes(scraper, {
        nodeExporterNames: true,
        title: 'four-node',
        agent: () => ({ running: true, pid: 42, recent: [{ time: 't', line: 'moved pid 7' }] }),
        afterScrape: (at) => paced.push({ at, scrapes }),
      }),
    });
  });
  after(async () => {
    await srv.close();
    fx.remove();
  });

  it('/metrics: the heap is paced once an answer is out, once for scrapers that came together (issue 28)', async () => {
    paced.length = 0;
    const t0 = performance.now();
    const before = scrapes;
    const bodies = await Promise.all(Array.from({ length: 5 }, () => get('/metrics').then((r) => r.text())));
    assert.ok(bodies.every((b) => b.includes('node_memory_numa_')));
    await new Promise((r) => setImmediate(r));
    // Scrapers that share a reading share its pacing: one per reading taken (1 unless the five
    // requests trickled in apart on a loaded machine), never one per request.
    assert.ok(paced.length >= 1 && paced.length === scrapes - before, JSON.stringify({ paced, scrapes, before }));
    assert.ok(paced[0]!.at >= t0);
    const n = paced.length;
    await get('/metrics');
    await new Promise((r) => setImmediate(r));
    assert.equal(paced.length, n + 1, 'a later scrape paces again');
    await get('/api/live');
    await new Promise((r) => setImmediate(r));
    assert.equal(paced.length, n + 1, 'the dashboard polls do not');
  });

  it('the page, its script and styles, with their types', async () => {
    for (const [p, type] of [
      ['/', 'text/html'],
      ['/app.js', 'text/javascript'],
      ['/style.css', 'text/css'],
      ['/topology.css', 'text/css'],
    ]) {
      const r = await get(p!);
      assert.equal(r.status, 200, p);
      assert.match(r.headers.get('content-type')!, new RegExp(`^${type}`), p);
    }
    const html = await (await get('/')).text();
    assert.doesNotMatch(html, /https?:\/\//, 'no CDN, no external font');
    assert.equal((await get('/index.html')).status, 404, 'only / names the page');
  });

  it('/api/topology: the picture without inline style, its version and title', async () => {
    const t = (await (await get('/api/topology')).json()) as { version: number; title: string; svg: string };
    assert.equal(t.title, 'four-node');
    assert.equal(t.svg.match(/<g class="node" /g)?.length, 4);
    assert.doesNotMatch(t.svg, /<style/);
    assert.ok(t.version >= 1);
  });

  it('/api/live: nodes with memory and counters, processes, the agent; polls within a second share a scrape', async () => {
    const n0 = scrapes;
    const [a, b] = await Promise.all([get('/api/live'), get('/api/live')]);
    const live = (await a.json()) as {
      nodes: { node: number; memTotal: number; numastat: Record<string, number> }[];
      processes: { name: string }[];
      agent: { pid: number };
    };
    await b.json();
    assert.ok(scrapes - n0 <= 1, `${scrapes - n0} scrapes for two polls`);
    assert.deepEqual(
      live.nodes.map((n) => n.node),
      [0, 1, 2, 3],
    );
    assert.equal(live.nodes[1]!.memTotal, 16777216 * 1024);
    assert.equal(live.nodes[1]!.numastat.numa_miss, 34567);
    assert.deepEqual(
      live.processes.map((p) => p.name),
      ['hugeapp', 'java', 'postgres'],
    );
    assert.equal(live.agent.pid, 42);
  });
});

describe('serve dashboard: memory tiers', () => {
  it("/api/topology carries the tiers and HMAT lines, /api/live each node's promotion and demotion counters", async () => {
    const { topologyJson, liveJson } = await import('../../../src/serve/live.js');
    const { copyFixture } = await import('./helpers.js');
    const { TEST_DIR } = await import('../../helpers/cli.js');
    const { join } = await import('node:path');
    const fx = copyFixture(join(TEST_DIR, 'fixtures/topo/tier-hmat-612'));
    try {
      const sc = new Scraper(fx.root, OPTS).scrape();
      const t = topologyJson(sc, 'tiers') as { tiers: string[] };
      assert.ok(t.tiers.includes('  tier 18: node 2 (slower than DRAM; memory-only: 2)'), t.tiers.join('\n'));
      assert.ok(t.tiers.includes('node 2: HMAT from node 0: read 30 ns, 6667 MB/s; write 30 ns, 6250 MB/s'));
      const live = liveJson(sc, null) as { nodes: { node: number; tiering: Record<string, number> }[] };
      assert.deepEqual(live.nodes.find((n) => n.node === 1)!.tiering, { pgpromote_success: 2400, pgdemote: 300 });
    } finally {
      fx.remove();
    }
  });
});
