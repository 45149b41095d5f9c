// A collector that meets an unexpected error (a bug, an errno no reader expects) is never
// dropped: the scrape says it in one line naming the collector (its stack under NUMAKIT_DEBUG=1),
// counts it in numakit_scrape_collector_errors_total, reports the collector failed, and goes on
// with the others.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { failureLine } from '../../../src/model/errors.js';
import { scrapeFamilies } from '../../../src/serve/metrics.js';
import { renderExposition } from '../../../src/serve/exposition.js';
import { Scraper } from '../../../src/serve/scrape.js';
import { withReadFaults } from '../../helpers/read_faults.js';
import { OPTS, realisticFourNode, value } from './helpers.js';

describe('serve: a collector that throws', () => {
  let fx: ReturnType<typeof realisticFourNode>;
  before(() => (fx = realisticFourNode()));
  after(() => fx.remove());

  function scraper(log: string[]) {
    // vmstat's read throws a TypeError, as a bug in its reader would.
    const root = {
      ...fx.root,
      onAccess: (_k: string, rel: string) => {
        if (rel === 'proc/vmstat') throw new TypeError('boom in a reader');
      },
    };
    return new Scraper(root, { ...OPTS, log: (l) => void log.push(l) });
  }

  it('one line naming it and the error, counted per scrape, the others succeed', () => {
    const log: string[] = [];
    const s = scraper(log);
    s.scrape();
    const t = renderExposition(scrapeFamilies(s.scrape(), { nodeExporterNames: false }));
    assert.deepEqual(log, [
      'numakit: serve: collector vmstat failed: TypeError: boom in a reader\n',
      'numakit: serve: collector vmstat failed: TypeError: boom in a reader\n',
    ]);
    assert.equal(value(t, 'numakit_scrape_collector_errors_total{collector="vmstat"}'), 2);
    assert.equal(value(t, 'numakit_scrape_collector_errors_total{collector="processes"}'), 0);
    assert.equal(value(t, 'numakit_scrape_collector_success{collector="vmstat"}'), 0);
    assert.equal(value(t, 'numakit_scrape_gaps{collector="vmstat",reason="error"}'), 1);
    for (const c of ['node_memory', 'node_cpu', 'topology', 'hugepages'])
      assert.equal(value(t, `numakit_scrape_collector_success{collector="${c}"}`), 1, c);
  });

  it('NUMAKIT_DEBUG=1: the stack follows the line', () => {
    const was = process.env.NUMAKIT_DEBUG;
    process.env.NUMAKIT_DEBUG = '1';
    try {
      const log: string[] = [];
      scraper(log).scrape();
      assert.match(log[0]!, /^numakit: serve: collector vmstat failed: TypeError: boom in a reader\nTypeError: boom/);
      assert.match(log[0]!, /\n\s+at /);
    } finally {
      if (was === undefined) delete process.env.NUMAKIT_DEBUG;
      else process.env.NUMAKIT_DEBUG = was;
    }
  });

  it('failureLine: one line, whatever the message holds; the stack only when asked', () => {
    const e = new RangeError('first\nsecond');
    assert.equal(failureLine('x', e, { stack: false }), 'x failed: RangeError: first');
    assert.equal(failureLine('x', 'a string', { stack: false }), 'x failed: a string');
    assert.match(
      failureLine('x', e, { stack: true }),
      /^x failed: RangeError: first\nRangeError: first\nsecond\n\s+at /,
    );
  });
});

describe('serve: a numa_maps the kernel cannot allocate memory to read (ENOMEM)', () => {
  let fx: ReturnType<typeof realisticFourNode>;
  before(() => (fx = realisticFourNode()));
  after(() => fx.remove());

  it('is a no-memory gap of the processes collector, not an error; the other processes are listed', async () => {
    const log: string[] = [];
    const s = new Scraper(fx.root, { ...OPTS, log: (l) => void log.push(l) });
    const t = await withReadFaults(
      (path) => (path.endsWith('/proc/1302/numa_maps') ? 'ENOMEM' : undefined),
      async () => renderExposition(scrapeFamilies(s.scrape(), { nodeExporterNames: false })),
    );
    assert.deepEqual(log, []);
    assert.equal(value(t, 'numakit_scrape_gaps{collector="processes",reason="no-memory"}'), 1);
    assert.equal(value(t, 'numakit_scrape_collector_errors_total{collector="processes"}'), 0);
    assert.equal(value(t, 'numakit_scrape_collector_success{collector="processes"}'), 0, 'it did not read everything');
    assert.doesNotMatch(t, /pid="1302"/);
    assert.match(t, /numakit_process_remote_bytes\{pid="1403"/);
  });
});
