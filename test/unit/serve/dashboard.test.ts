// The dashboard in a real browser (Debian's chromium driven by playwright-core, no browser
// download): one launch, a four-node fixture machine served by `numakit serve --root`, then:
// no console errors, one box per node in the picture, the process table fills, live values
// change when the machine's counters do, and a screenshot kept in artifacts/ (docs/img/dashboard.png
// comes from a lab guest with real processes: test/lab/dashboard.lab.test.ts).
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REPO_DIR } from '../../helpers/cli.js';
import { skipUnlessTools, toolPath } from '../../helpers/tools.js';
import { procStat, realisticFourNode, startServe, type Child } from './helpers.js';
import type { Browser } from 'playwright-core';

const skip = skipUnlessTools('chromium');
const CHROMIUM = toolPath('chromium') ?? 'chromium';
const NODE = 'sys/devices/system/node';

describe('dashboard in chromium', {
  skip,
}, () => {
  let fx: ReturnType<typeof realisticFourNode>;
  let child: Child;
  let browser: Browser | undefined;
  before(async () => {
    fx = realisticFourNode();
    child = await startServe(['--doctor-interval', '1h'], ['--root', fx.dir]);
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
  });
  after(async () => {
    await browser?.close();
    await child?.stop();
    fx?.remove();
  });

  it('loads clean, draws every node, fills the tables, updates live values; screenshot kept', async () => {
    const page = await browser!.newPage({ viewport: { width: 1280, height: 1000 } });
    const errors: string[] = [];
    page.on('console', (m: { type(): string; text(): string }) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e: Error) => errors.push(e.message));
    page.on('requestfailed', (r: { url(): string }) => errors.push(`request failed: ${r.url()}`));
    await page.goto(`${child.base}/`);
    await page.waitForSelector('svg.topology g.node');
    assert.equal(await page.locator('svg.topology g.node').count(), 4, 'one box per node');
    assert.equal(await page.locator('svg.topology g.dist').count(), 16, 'the distance heatmap');
    await page.waitForSelector('#procs tbody tr');
    const procs = await page.locator('#procs tbody tr').allTextContents();
    assert.ok(
      procs.some((r: string) => r.includes('hugeapp')),
      procs.join('\n'),
    );
    // Rates need two readings: wait for the second poll.
    await page.waitForFunction(
      () => [...document.querySelectorAll('#nodes tbody td:nth-child(5)')].every((td) => td.textContent !== '–'),
      null,
      { timeout: 10_000 },
    );
    const before = await page.locator('#nodes tbody').textContent();
    // The machine moves: node 0 allocates (numa_hit grows) and its free memory falls; CPUs work.
    writeFileSync(join(fx.dir, 'proc/stat'), procStat(400, 1000));
    const ns = join(fx.dir, NODE, 'node0/numastat');
    writeFileSync(
      ns,
      readFileSync(ns, 'utf8').replace(/^numa_hit (\d+)$/m, (_l, v: string) => `numa_hit ${Number(v) + 400000}`),
    );
    const mi = join(fx.dir, NODE, 'node0/meminfo');
    writeFileSync(
      mi,
      readFileSync(mi, 'utf8').replace(
        /^(Node 0 MemFree:\s+)(\d+)/m,
        (_l, h: string, v: string) => `${h}${Number(v) - 4 * 1024 * 1024}`,
      ),
    );
    await page.waitForFunction((b) => document.querySelector('#nodes tbody')!.textContent !== b, before, {
      timeout: 10_000,
    });
    const after = await page.locator('#nodes tbody').textContent();
    assert.notEqual(after, before);
    assert.match((await page.locator('#node-0-mem-text').textContent()) ?? '', /used of 16\.0 GiB/);
    // Doctor ran on its worker thread: the fixture's uneven huge pages, with their fixes.
    await page.waitForSelector('#doctor .finding.warning pre', { timeout: 20_000 });
    // served with --root: a snapshot, even one whose counters a test moves
    assert.equal(await page.locator('#nodes-mode').textContent(), '(a snapshot, not live)');
    mkdirSync(join(REPO_DIR, 'artifacts'), { recursive: true });
    const shot = join(REPO_DIR, 'artifacts/dashboard.png');
    await page.screenshot({ path: shot, fullPage: true });
    assert.deepEqual(errors, []);
  });

  it('on a snapshot it lists the processes, says what their locality weighs, and why CPUs read "–"', async () => {
    const snap = await startServe(['--doctor-interval', '1h'], ['--example', 'lab-2node-procs']);
    try {
      const page = await browser!.newPage({ viewport: { width: 1280, height: 1000 } });
      await page.goto(`${snap.base}/`);
      await page.waitForFunction(
        () => /snapshot/.test(document.querySelector('#procs-note')?.textContent ?? ''),
        null,
        {
          timeout: 10_000,
        },
      );
      assert.match(
        (await page.locator('#procs-note').textContent()) ?? '',
        /this is a snapshot: it holds one reading of each process and no \/proc\/stat, so locality weighs the CPU time each process used since it started/,
      );
      // The sampler reads a capture's processes (CPU time since start): remote-app is listed.
      const procs = await page.locator('#procs tbody tr').allTextContents();
      assert.ok(
        procs.some((r: string) => r.includes('remote-app')),
        procs.join('\n'),
      );
      assert.match((await page.locator('#nodes tbody').textContent()) ?? '', /– \(a snapshot: no CPU times\)/);
      // Not "live": a snapshot holds one reading of its counters.
      assert.equal(await page.locator('#nodes-mode').textContent(), '(a snapshot, not live)');
      await page.close();
    } finally {
      await snap.stop();
    }
  });
});
