// The text format: escaping, number forms, empty families, and refusing invalid names.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { family, formatValue, renderExposition, s } from '../../../src/serve/exposition.js';
import { CounterVec, GaugeVec, Recent } from '../../../src/serve/registry.js';

describe('exposition', () => {
  it('HELP, TYPE and samples; label values and help escaped', () => {
    const text = renderExposition([
      family('a_total', 'counter', 'line\\one\nand two', [s(3, { name: 'x"y\\z\nw', pid: '1' })]),
      family('b', 'gauge', 'empty', []),
    ]);
    assert.equal(
      text,
      '# HELP a_total line\\\\one\\nand two\n# TYPE a_total counter\na_total{name="x\\"y\\\\z\\nw",pid="1"} 3\n',
    );
  });

  it('numbers: integers, fractions, large, NaN and infinities', () => {
    for (const [v, t] of [
      [0, '0'],
      [0.25, '0.25'],
      [7342338048, '7342338048'],
      [1e21, '1e+21'],
      [NaN, 'NaN'],
      [Infinity, '+Inf'],
      [-Infinity, '-Inf'],
    ] as const)
      assert.equal(formatValue(v), t);
  });

  it('refuses invalid metric and label names and a family emitted twice', () => {
    assert.throws(() => renderExposition([family('1bad', 'gauge', 'h', [s(1)])]), /invalid metric name/);
    assert.throws(() => renderExposition([family('ok', 'gauge', 'h', [s(1, { 'a-b': 'x' })])]), /invalid label name/);
    assert.throws(
      () => renderExposition([family('ok', 'gauge', 'h', [s(1)]), family('ok', 'gauge', 'h', [s(2)])]),
      /emitted twice/,
    );
  });

  it('registry: counters only go up, gauges reset, the ring keeps the last N', () => {
    const c = new CounterVec('c_total', 'h', [{}]);
    c.inc();
    c.inc({}, 2);
    c.inc({ outcome: 'moved' });
    assert.throws(() => c.inc({}, -1), /cannot go down/);
    assert.equal(
      renderExposition([c.family()]),
      '# HELP c_total h\n# TYPE c_total counter\nc_total 3\nc_total{outcome="moved"} 1\n',
    );
    const g = new GaugeVec('g', 'h');
    g.set({ pid: '1' }, 0.5);
    g.reset();
    assert.equal(g.family().samples.length, 0);
    const r = new Recent<number>(2);
    [1, 2, 3].forEach((x) => r.push(x));
    assert.deepEqual(r.list(), [2, 3]);
  });
});
