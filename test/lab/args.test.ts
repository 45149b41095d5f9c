import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LabUsageError, parseLabArgs } from './args.js';

describe('parseLabArgs', () => {
  it('parses lists, sizes, a matrix and the command after --', () => {
    const a = parseLabArgs([
      '--nodes',
      '3',
      '--cpus=2,2,0',
      '--mem',
      '1G,512,256M',
      '--distances',
      '10,20,30;20,10,30;30,30,10',
      '--memory-only',
      '2',
      '--hmat',
      '--timeout',
      '30',
      '--',
      'numactl',
      '-H',
    ]);
    assert.deepEqual(a.topology, {
      name: 'custom',
      nodes: 3,
      cpus: [2, 2, 0],
      memMiB: [1024, 512, 256],
      distances: [
        [10, 20, 30],
        [20, 10, 30],
        [30, 30, 10],
      ],
      memoryOnly: [2],
      hmat: true,
    });
    assert.equal(a.timeoutMs, 30_000);
    assert.deepEqual(a.command, ['numactl', '-H']);
  });

  it('starts from a shared topology and keeps extra flags', () => {
    const a = parseLabArgs(['--topology', '4node-asym', '--name', 'x'], ['--name']);
    assert.equal(a.topology.name, '4node-asym');
    assert.equal(a.extra.get('--name'), 'x');
  });

  for (const [argv, re] of [
    [['--nodes', 'two'], /expected a number/],
    [['--mem', '1T'], /expected MiB/],
    [['--topology', 'nope'], /unknown topology 'nope'/],
    [['--bogus', '1'], /unknown option '--bogus'/],
    [['--nodes'], /needs a value/],
    [['numactl'], /put the command after --/],
  ] as const) {
    it(`rejects ${argv.join(' ')}`, () =>
      assert.throws(
        () => parseLabArgs(argv),
        (e: unknown) => e instanceof LabUsageError && re.test(e.message),
      ));
  }
});
