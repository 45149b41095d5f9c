// Runs in a lab guest: the dashboard of URL in Debian's chromium (playwright-core), once the
// topology, the process table and a second poll's rates are drawn, as a PNG at OUT.
//   node dashboard_png.mjs http://127.0.0.1:10464/ OUT.png
import { chromium } from 'playwright-core';

const [url, out] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-dev-shm-usage'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  page.setDefaultTimeout(120_000);
  await page.goto(url);
  await page.waitForSelector('svg.topology g.node');
  await page.waitForSelector('#procs tbody tr');
  await page.waitForFunction(() =>
    [...document.querySelectorAll('#nodes tbody td:nth-child(5)')].every((td) => td.textContent !== '–'),
  );
  await page.waitForSelector('#doctor .finding');
  await page.screenshot({ path: out, fullPage: true });
  process.stdout.write(`screenshot ${out}\n`);
} finally {
  await browser.close();
}
