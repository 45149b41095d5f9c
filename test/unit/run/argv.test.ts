// `numakit run` argument handling, numactl-style (getopt_long with "+").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UsageError } from '../../../src/model/errors.ts';
import type { RunArgs } from '../../../src/model/run_args.ts';
import { parseRunArgs } from '../../../src/cli/commands/run_argv.ts';

const base: RunArgs = { all: false, balancing: false, show: false, hardware: false, help: false, command: [] };

test('numactl(8) example command lines', () => {
  const cases: Array<[string[], Partial<RunArgs>]> = [
    [
      ['--physcpubind=+0-4,8-12', 'myapplic', 'arguments'],
      { cpus: { kind: 'physcpubind', spec: '+0-4,8-12' }, command: ['myapplic', 'arguments'] },
    ],
    [
      ['--interleave=all', 'bigdatabase', 'arguments'],
      { memory: { kind: 'interleave', spec: 'all' }, command: ['bigdatabase', 'arguments'] },
    ],
    [
      ['--cpunodebind=0', '--membind=0,1', 'process'],
      { cpus: { kind: 'cpunodebind', spec: '0' }, memory: { kind: 'membind', spec: '0,1' }, command: ['process'] },
    ],
    [
      ['--cpunodebind=0', '--membind=0,1', '--', 'process', '-l'],
      {
        cpus: { kind: 'cpunodebind', spec: '0' },
        memory: { kind: 'membind', spec: '0,1' },
        command: ['process', '-l'],
      },
    ],
    [
      ['--preferred=1', 'numactl', '--show'],
      { memory: { kind: 'preferred', spec: '1' }, command: ['numactl', '--show'] },
    ],
    [
      ['--cpunodebind=netdev:eth0', '--membind=netdev:eth0', 'network-server'],
      {
        cpus: { kind: 'cpunodebind', spec: 'netdev:eth0' },
        memory: { kind: 'membind', spec: 'netdev:eth0' },
        command: ['network-server'],
      },
    ],
    [['-i', 'all', '--', 'process'], { memory: { kind: 'interleave', spec: 'all' }, command: ['process'] }],
  ];
  for (const [argv, expected] of cases) assert.deepEqual(parseRunArgs(argv), { ...base, ...expected }, argv.join(' '));
});

test('every way to give a value', () => {
  const want = { ...base, memory: { kind: 'interleave', spec: 'all' }, command: ['cmd'] } as RunArgs;
  for (const argv of [
    ['--interleave=all', 'cmd'],
    ['--interleave', 'all', 'cmd'],
    ['-i', 'all', 'cmd'],
    ['-iall', 'cmd'],
    ['--inter=all', 'cmd'],
  ]) {
    assert.deepEqual(parseRunArgs(argv), want, argv.join(' '));
  }
});

test('each option and its short letter', () => {
  const cases: Array<[string[], Partial<RunArgs>]> = [
    [['-w', '0', 'x'], { memory: { kind: 'weighted-interleave', spec: '0' } }],
    [['--weighted-interleave=0', 'x'], { memory: { kind: 'weighted-interleave', spec: '0' } }],
    [['-p', '0', 'x'], { memory: { kind: 'preferred', spec: '0' } }],
    [['-P', '0,1', 'x'], { memory: { kind: 'preferred-many', spec: '0,1' } }],
    [['--preferred-many=0,1', 'x'], { memory: { kind: 'preferred-many', spec: '0,1' } }],
    [['-m', '1', 'x'], { memory: { kind: 'membind', spec: '1' } }],
    [['-l', 'x'], { memory: { kind: 'localalloc' } }],
    [['--localalloc', 'x'], { memory: { kind: 'localalloc' } }],
    [['-N', '1', 'x'], { cpus: { kind: 'cpunodebind', spec: '1' } }],
    [['--cpubind=1', 'x'], { cpus: { kind: 'cpunodebind', spec: '1' } }],
    [['-C', '0-3', 'x'], { cpus: { kind: 'physcpubind', spec: '0-3' } }],
    [['-lC0', 'x'], { memory: { kind: 'localalloc' }, cpus: { kind: 'physcpubind', spec: '0' } }],
    [['-N', '0', '-C', '3', 'x'], { cpus: { kind: 'physcpubind', spec: '3' } }], // the last affinity wins
    [['-a', '-m', '2', 'x'], { all: true, memory: { kind: 'membind', spec: '2' } }],
    [['-H'], { hardware: true, command: [] }],
    [['-b', '-m', '0', 'x'], { balancing: true, memory: { kind: 'membind', spec: '0' } }],
    [['--membind=1', '--balancing', 'x'], { balancing: true, memory: { kind: 'membind', spec: '1' } }],
  ];
  for (const [argv, expected] of cases) {
    const command = argv.at(-1) === 'x' ? ['x'] : [];
    assert.deepEqual(parseRunArgs(argv), { ...base, command, ...expected }, argv.join(' '));
  }
});

test('--show stops reading, like numactl; "same" repeats the last node spec', () => {
  assert.deepEqual(parseRunArgs(['-m', '0', '--show', '-i', 'all']), {
    ...base,
    memory: { kind: 'membind', spec: '0' },
    show: true,
  });
  assert.deepEqual(parseRunArgs(['-s']), { ...base, show: true });
  assert.deepEqual(parseRunArgs(['-N', '1', '-m', 'same', 'x']), {
    ...base,
    cpus: { kind: 'cpunodebind', spec: '1' },
    memory: { kind: 'membind', spec: '1' },
    command: ['x'],
  });
  assert.deepEqual(parseRunArgs(['--help']), { ...base, help: true });
});

test('options after the command belong to the command', () => {
  assert.deepEqual(parseRunArgs(['ls', '-l', '--membind=1']), { ...base, command: ['ls', '-l', '--membind=1'] });
  assert.deepEqual(parseRunArgs(['-m', '0', 'ls', '--help']), {
    ...base,
    memory: { kind: 'membind', spec: '0' },
    command: ['ls', '--help'],
  });
});

test('bad command lines are one clear error with exit status 2 (usage), as for every command', () => {
  const cases: Array<[string[], RegExp]> = [
    [['--interleave'], /--interleave needs a value/],
    [['-i'], /-i needs a value/],
    [['--bogus', 'x'], /unknown option '--bogus'/],
    [['-x'], /unknown option '-x'/],
    [['--p=0', 'x'], /option '--p' is ambiguous \(--preferred, --preferred-many, --physcpubind\)/],
    [['--show=1'], /--show takes no value/],
    [['-m', '0', '-i', 'all', 'x'], /conflicting policies: -m and -i/],
    [['--membind=0', '--localalloc', 'x'], /conflicting policies: --membind and --localalloc/],
    [['-m', 'same', 'x'], /-m same: no earlier node specification/],
    [['-m', '0', '-a', 'x'], /--all must come before every node and CPU specification/],
    [['-b', '-i', 'all', 'x'], /--balancing goes with --membind/],
    [['--shm', 'key', '-m', '0', 'cmd'], /^--shm sets a policy on shared memory and runs no command \('cmd'\)$/],
    [['-m', '0', '-f', '/dev/shm/x'], /^-m before -f: give the policy after --shm\/--file/],
    [['--touch'], /^--touch acts on shared memory: give --shm KEYFILE or --file PATH before it$/],
    [['--dump-nodes', '--shm', 'k'], /^--dump-nodes acts on shared memory/],
    [['--shm', 'k', '--length', '4m'], /^--length must come before --shm$/],
    [['-f', 'x', '-M', '600'], /^-M must come before --file$/],
    [['-L', '4m', 'cmd'], /^-L goes with --shm KEYFILE or --file PATH$/],
    [['-L', '4q', '-S', 'k'], /^-L '4q': not a size/],
    [['-M', '0800', '-S', 'k'], /^-M '0800': not an octal mode/],
    [['-C', '0', '--shm', 'k'], /^-C with --shm: a CPU binding has no meaning for shared memory$/],
    [['--shm', 'k', '-N', '0'], /^-N with --shm: a CPU binding/],
    [['--shm', 'k', '--file', 'f'], /^--file: only one --shm or --file at a time$/],
    [['--shm', 'k', '-m', '0', '-i', '0'], /^conflicting policies: -m and -i$/],
  ];
  for (const [argv, message] of cases) {
    assert.throws(
      () => parseRunArgs(argv),
      (err: unknown) => {
        assert.ok(err instanceof UsageError, argv.join(' '));
        assert.equal(err.exitCode, 2);
        assert.match(err.message, message, argv.join(' '));
        return true;
      },
    );
  }
});
