// numakit plan as a command: printing, --out (modes, refusing to overwrite), option errors.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import planCommand from '../../../src/cli/commands/plan.js';
import type { Context } from '../../../src/cli/context.js';
import { renderHelp } from '../../../src/cli/help.js';
import { parseCommandArgs } from '../../../src/cli/parse_options.js';
import { openRoot } from '../../../src/sysfs/root.js';
import { EXAMPLES } from './machines.js';

/** plan as main() runs it: arguments parsed by its declaration first. */
const plan = {
  run: async (args: string[], c: Context) => planCommand.run(parseCommandArgs(planCommand, args, 'plan'), c),
  usage: renderHelp('plan', planCommand),
};

function ctx(): Context & { text: () => string } {
  let buf = '';
  const root = openRoot(join(EXAMPLES, 'spark-2s'), 'example spark-2s');
  return {
    root,
    rootGiven: true,
    out: (t) => void (buf += t),
    err: () => {},
    color: false,
    isTTY: false,
    text: () => buf,
  };
}

test('prints every file under a header, PLAN.md last', async () => {
  const c = ctx();
  assert.equal(await plan.run(['spark-standalone'], c), 0);
  assert.match(c.text(), /^==> \/opt\/numa-java\/bin\/java \(mode 0755\) <==$/m);
  assert.match(c.text(), /==> PLAN\.md \(mode 0644\) <==\n# numakit plan spark-standalone\n[\s\S]*$/);
});

test('--out writes files by install path with their modes, and refuses to overwrite', async () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'numakit-plan-')), 'out');
  const c = ctx();
  assert.equal(await plan.run(['spark-standalone', '--out', dir], c), 0);
  assert.equal(statSync(join(dir, 'opt/numa-java/bin/java')).mode & 0o777, 0o755);
  assert.equal(statSync(join(dir, 'etc/systemd/system/spark-worker-node1.service')).mode & 0o777, 0o644);
  assert.match(readFileSync(join(dir, 'PLAN.md'), 'utf8'), /16 physical cores x 0.8 = 12.8 -> 13/);
  await assert.rejects(plan.run(['redis', '--out', dir], ctx()), /not empty; .* --force/);
  assert.equal(await plan.run(['redis', '--out', dir, '--force'], ctx()), 0);
  assert.ok(!existsSync(join(dir, 'opt/numa-java/bin/java')), 'the earlier plan was replaced whole');
  assert.ok(existsSync(join(dir, 'etc/redis/numa/6379.conf')));
});

test('--force never replaces a directory that holds no plan', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'numakit-plan-'));
  writeFileSync(join(dir, 'precious'), 'x');
  await assert.rejects(plan.run(['redis', '--out', dir, '--force'], ctx()), /holds no PLAN\.md/);
  assert.equal(readFileSync(join(dir, 'precious'), 'utf8'), 'x');
});

test('a refused option writes nothing', async () => {
  const base = mkdtempSync(join(tmpdir(), 'numakit-plan-'));
  mkdirSync(join(base, 'out'));
  await assert.rejects(
    plan.run(['jvm', '--heap', '900g', '--jar', '/a.jar', '--out', join(base, 'out')], ctx()),
    /does not fit this machine/,
  );
  assert.ok(!existsSync(join(base, 'out', 'PLAN.md')));
});

test('usage errors: no workload, unknown workload, unknown option', async () => {
  await assert.rejects(plan.run([], ctx()), /name one workload/);
  await assert.rejects(plan.run(['kafka'], ctx()), /unknown workload 'kafka'/);
  await assert.rejects(plan.run(['redis', '--bogus'], ctx()), /bogus/);
  assert.match(plan.usage, /spark-standalone/);
  assert.match(plan.usage, /--out DIR/);
});
