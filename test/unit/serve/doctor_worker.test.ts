// A doctor run that fails on its worker thread is never dropped: the worker's error crosses back
// with its name, message and stack, and the scraper names it in one line (the stack under
// NUMAKIT_DEBUG=1) and counts it in numakit_scrape_collector_errors_total{collector="doctor"},
// keeping the findings of the run before.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DoctorCache } from '../../../src/serve/collect/doctor.js';
import { renderExposition } from '../../../src/serve/exposition.js';
import { scrapeFamilies } from '../../../src/serve/metrics.js';
import { Scraper } from '../../../src/serve/scrape.js';
import type { SysRoot } from '../../../src/sysfs/root.js';
import { OPTS, realisticFourNode, value } from './helpers.js';

/**
 * A root the worker cannot read: a NUL byte in its path makes the first fs call throw a TypeError
 * (ERR_INVALID_ARG_VALUE), an error no reader expects, as a bug would.
 */
const NUL_DIR = '/nonexistent/a\0b';
const BROKEN: SysRoot = { dir: NUL_DIR, isReal: false, label: 'broken' };

describe('serve: a doctor run that fails on its worker', () => {
  let fx: ReturnType<typeof realisticFourNode>;
  before(() => (fx = realisticFourNode()));
  after(() => fx.remove());

  it("the worker's own error reaches the cache: name, message and stack", async () => {
    const seen: Error[] = [];
    const cache = new DoctorCache(BROKEN, 0, undefined, undefined, (e) => void seen.push(e));
    await cache.refresh();
    assert.equal(cache.run?.failed, 'error');
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.name, 'TypeError');
    assert.match(seen[0]!.message, /without null bytes/);
    assert.match(seen[0]!.stack ?? '', /\n\s+at .*(sysfs|discover)\//, 'the stack of the worker, where it failed');
  });

  it('the scraper names it in one line and counts it; the stack under NUMAKIT_DEBUG=1', async () => {
    let broken = false;
    const root = {
      ...fx.root,
      get dir() {
        return broken ? NUL_DIR : fx.root.dir;
      },
    };
    const log: string[] = [];
    const s = new Scraper(root, { ...OPTS, doctorIntervalMs: 0, log: (l) => void log.push(l) });
    broken = true;
    await s.doctor.refresh();
    process.env['NUMAKIT_DEBUG'] = '1';
    broken = false;
    await s.doctor.refresh().finally(() => delete process.env['NUMAKIT_DEBUG']);
    assert.match(
      log[0]!,
      /^numakit: serve: collector doctor failed: TypeError: The argument 'path' must be [^\n]*without null bytes[^\n]*\n$/,
    );
    assert.equal(log.length, 1, 'a run that succeeds logs nothing');
    broken = true;
    process.env['NUMAKIT_DEBUG'] = '1';
    await s.doctor.refresh().finally(() => delete process.env['NUMAKIT_DEBUG']);
    broken = false;
    assert.match(log[1]!, /^numakit: serve: collector doctor failed: TypeError: [^\n]*\nTypeError[^\n]*\n\s+at /);
    const t = renderExposition(scrapeFamilies(s.scrape(), { nodeExporterNames: false }));
    assert.equal(value(t, 'numakit_scrape_collector_errors_total{collector="doctor"}'), 2);
    assert.equal(value(t, 'numakit_doctor_last_run_success'), 0);
  });
});
