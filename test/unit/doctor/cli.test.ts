// `numakit doctor` end to end on fixture trees and shipped examples: golden output for text,
// markdown and JSON, exit codes for --fail-on, and one-line errors for bad input.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { assertGolden, exampleRoot, machineRoot, runDoctorCmd, writeIn } from './cli_helpers.js';

describe('doctor on the fixture machines', () => {
  const untuned = machineRoot('untuned');
  const tuned = machineRoot('tuned');

  it('untuned, spark: text, markdown and JSON match their golden files', async () => {
    assertGolden('untuned-spark.txt', (await runDoctorCmd(untuned, ['--profile', 'spark'])).out);
    assertGolden('untuned-spark.md', (await runDoctorCmd(untuned, ['--profile', 'spark', '--markdown'])).out);
    assertGolden('untuned-spark.json', (await runDoctorCmd(untuned, ['--profile', 'spark', '--json'])).out);
  });

  it('tuned, spark, verbose: every check passes', async () => {
    const r = await runDoctorCmd(tuned, ['--profile', 'spark', '-v', '--fail-on', 'warning']);
    assertGolden('tuned-spark-v.txt', r.out);
    assert.equal(r.code, 0);
    assert.match(r.out, /0 critical, 0 warning, 0 info, 0 not checked, \d+ passed/);
  });

  it('JSON: every finding has the documented keys', async () => {
    const j = JSON.parse((await runDoctorCmd(untuned, ['--profile', 'database', '--json'])).out) as {
      schemaVersion: number;
      findings: Record<string, unknown>[];
    };
    assert.equal(j.schemaVersion, 1);
    assert.ok(j.findings.length > 20);
    for (const f of j.findings) {
      for (const k of ['id', 'severity', 'title', 'evidence', 'why', 'fix', 'changes'])
        assert.ok(k in f, `${String(f.id)} has ${k}`);
      const fix = f.fix as { runtime: unknown; persistent: unknown; manual: unknown };
      assert.ok(Array.isArray(fix.runtime) && Array.isArray(fix.persistent) && Array.isArray(fix.manual));
      for (const e of f.evidence as { path: unknown; value: unknown }[])
        assert.ok(typeof e.path === 'string' && typeof e.value === 'string');
    }
    const zr = j.findings.find((f) => f.id === 'zone-reclaim')!;
    const [c] = zr.changes as { kind: string; target: string; value: string; reason: string }[];
    assert.deepEqual([c!.kind, c!.target, c!.value], ['sysctl', 'vm.zone_reclaim_mode', '0']);
    assert.match(c!.reason, /full node takes memory from another node/);
  });

  const exits: [string, () => ReturnType<typeof machineRoot>, string[], number][] = [
    ['untuned, --fail-on warning', () => untuned, ['--profile', 'spark', '--fail-on', 'warning'], 1],
    ['untuned, default (critical)', () => untuned, ['--profile', 'spark'], 0],
    ['tuned, --fail-on warning', () => tuned, ['--profile', 'spark', '--fail-on', 'warning'], 0],
    [
      'numa=off, default (critical)',
      () => machineRoot('tuned', (d) => writeIn(d, 'proc/cmdline', 'ro quiet numa=off\n')),
      [],
      1,
    ],
  ];
  for (const [name, root, args, code] of exits) {
    it(`exit code: ${name} -> ${code}`, async () => assert.equal((await runDoctorCmd(root(), args)).code, code));
  }

  it('colour only when the context allows it', async () => {
    assert.match((await runDoctorCmd(untuned, ['--profile', 'spark'], true)).out, /\x1b\[33;1m/);
    assert.doesNotMatch((await runDoctorCmd(untuned, ['--profile', 'spark'], false)).out, /\x1b\[/);
  });

  const bad: [string[], RegExp, number][] = [
    [['--profile', 'oltp'], /^numakit: --profile oltp: unknown profile; one of general, spark/, 2],
    [['--fail-on', 'info'], /^numakit: doctor: --fail-on info: expected one of warning, critical$/m, 2],
    [['--json', '--markdown'], /cannot be used together/, 2],
    [['--frobnicate'], /frobnicate/, 2],
  ];
  for (const [args, msg, code] of bad) {
    it(`bad options ${args.join(' ')}: one line, exit ${code}`, async () => {
      const r = await runDoctorCmd(tuned, args);
      assert.equal(r.code, code);
      assert.match(r.err, msg);
      assert.equal(r.err.trim().split('\n').length, 1);
    });
  }

  it('a kernel file that cannot be parsed costs its check only: one warning naming it', async () => {
    const r = await runDoctorCmd(
      machineRoot('tuned', (d) => writeIn(d, 'sys/kernel/mm/ksm/run', 'on\n')),
      ['-v'],
    );
    assert.equal(r.err, "numakit: warning: /sys/kernel/mm/ksm/run:1: not an integer: 'on' (ignored)\n");
    assert.match(r.out, /sys\/kernel\/mm\/ksm\/run could not be parsed/);
  });

  it('--rules lists all 23 rules', async () => {
    const r = await runDoctorCmd(tuned, ['--rules']);
    assert.equal(r.out.trim().split('\n').length, 23);
  });
});

describe('doctor on the shipped examples', () => {
  const cases: [string, string[], string][] = [
    ['spark-2s', ['--profile', 'spark'], 'spark-2s-spark.txt'],
    ['cxl-3node', ['--json'], 'cxl-3node-general.json'],
    ['vm-flat-32', ['--profile', 'database'], 'vm-flat-32-database.txt'],
    ['epyc-nps4', ['--profile', 'throughput', '--markdown'], 'epyc-nps4-throughput.md'],
  ];
  for (const [name, args, golden] of cases) {
    it(`${name} ${args.join(' ')}`, async () =>
      assertGolden(golden, (await runDoctorCmd(exampleRoot(name), args)).out));
  }
});
