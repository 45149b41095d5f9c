// One plan, one truth: PLAN.md's Files table, install and rollback blocks are made from the files
// the plan writes, and every block is a fenced block a program extracts and bash runs as it stands.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { NumakitError } from '../../../src/model/errors.js';
import { planWorkload } from '../../../src/policy/plan/index.js';
import { BACKUP_SUFFIX, planBlocks, restoreLines } from '../../../src/render/plan/blocks.js';
import { numaMapsPolicy, sizeWord } from '../../../src/render/plan/checks.js';
import { renderPlan } from '../../../src/render/plan/index.js';
import { CASES, exampleMachine, exampleNames } from './machines.js';

const tmp = mkdtempSync(join(tmpdir(), 'numakit-blocks-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

async function plans() {
  const out: { name: string; files: { path: string; mode: number; content: string }[]; md: string }[] = [];
  for (const machine of exampleNames())
    for (const c of CASES) {
      try {
        const files = await renderPlan(planWorkload(c.workload, exampleMachine(machine), c.raw));
        out.push({ name: `${machine}/${c.name}`, files: files.slice(0, -1), md: files.at(-1)!.content });
      } catch (e) {
        if (!(e instanceof NumakitError)) throw e;
      }
    }
  return out;
}

const section = (md: string, title: string) => md.split(`\n## ${title}\n`)[1]?.split('\n## ')[0] ?? '';

test('the Files table lists exactly the files written, with their modes', async () => {
  for (const p of await plans()) {
    const rows = section(p.md, 'Files')
      .split('\n')
      .filter((l) => l.startsWith('| /'))
      .map((l) => l.split(' | ').slice(0, 2).join(' ').replace(/^\| /, ''));
    assert.deepEqual(
      rows,
      p.files.map((f) => `${f.path} ${f.mode.toString(8).padStart(4, '0')}`),
      p.name,
    );
  }
});

test('install and rollback blocks name every file; start and check blocks where the workload runs units', async () => {
  let withCheck = 0;
  for (const p of await plans()) {
    const b = planBlocks(p.md);
    const install = b.get('install')!.split('\n');
    const rollback = b.get('rollback')!;
    for (const f of p.files) {
      assert.ok(
        install.includes(
          `install -D -b -S ${BACKUP_SUFFIX} -m ${f.mode.toString(8).padStart(4, '0')} .${f.path} ${f.path}`,
        ),
        `${p.name}: ${f.path}`,
      );
      assert.ok(rollback.includes(`rm -f ${f.path};`), `${p.name}: rollback of ${f.path}`);
    }
    for (const [name, text] of b) execFileSync('bash', ['-n', '-c', text], { stdio: 'pipe' }) && name;
    const runs = /redis|mysql|postgres|jvm|service|standalone/.test(p.name);
    assert.equal(
      b.has('start') && b.has('check'),
      runs && !p.name.includes('elasticsearch') ? true : b.has('start'),
      p.name,
    );
    if (b.has('check')) withCheck++;
  }
  assert.ok(withCheck > 30, `${withCheck} plans with a check block`);
});

test('systemd reloads once per change: install and rollback end with the reload, start adds none', async () => {
  // A reload costs seconds on a busy host; systemctl enable and disable do one by themselves
  // unless --no-reload, and the units are loaded by install's reload already.
  const reloads = (text: string) =>
    text.split('\n').filter((l) => /^systemctl daemon-reload$|^systemctl (enable|disable)(?!.*--no-reload)/.test(l));
  let enabling = 0;
  for (const p of await plans()) {
    const b = planBlocks(p.md);
    assert.deepEqual(reloads(b.get('install')!), ['systemctl daemon-reload'], `${p.name}: install`);
    assert.equal(b.get('install')!.split('\n').at(-1), 'systemctl daemon-reload', `${p.name}: install`);
    assert.deepEqual(reloads(b.get('rollback')!), ['systemctl daemon-reload'], `${p.name}: rollback`);
    const start = b.get('start') ?? '';
    assert.deepEqual(reloads(start), [], `${p.name}: start`);
    if (/^systemctl enable --now --no-reload /m.test(start)) enabling++;
  }
  assert.ok(enabling > 15, `${enabling} plans enabling units`);
});

test('the extraction PLAN.md itself gives (sed) yields the same blocks as planBlocks', async () => {
  const p = (await plans()).find((x) => x.name === 'spark-2s/redis')!;
  const md = join(tmp, 'PLAN.md');
  writeFileSync(md, p.md);
  for (const [name, text] of planBlocks(p.md)) {
    const sed = execFileSync('sed', ['-n', `/^\`\`\`sh numakit:${name}$/,/^\`\`\`$/{//!p}`, md], { encoding: 'utf8' });
    assert.equal(sed.trimEnd(), text, name);
  }
});

test("install then rollback leaves a root as it was: new files gone, a replaced file put back, the plan's own directories removed", () => {
  const root = join(tmp, 'root');
  const out = join(tmp, 'out');
  const files = [
    { path: `${root}/etc/systemd/system/x@0.service.d/50-numakit-numa.conf`, mode: 0o644, content: 'new\n', about: '' },
    { path: `${root}/etc/app/app.conf`, mode: 0o644, content: 'plan\n', about: '' },
    { path: `${root}/opt/numa-java/bin/java`, mode: 0o755, content: 'wrapper\n', about: '' },
  ];
  mkdirSync(`${root}/opt`, { recursive: true });
  mkdirSync(`${root}/etc/app`, { recursive: true });
  writeFileSync(`${root}/etc/app/app.conf`, 'host\n');
  for (const f of files) {
    mkdirSync(dirname(`${out}${f.path}`), { recursive: true });
    writeFileSync(`${out}${f.path}`, f.content);
  }
  const install = files.map((f) => `install -D -b -S ${BACKUP_SUFFIX} -m 0644 .${f.path} ${f.path}`).join('\n');
  execFileSync('bash', ['-e', '-c', install], { cwd: out });
  assert.equal(readFileSync(`${root}/etc/app/app.conf`, 'utf8'), 'plan\n');
  const rollback = restoreLines(files)
    .filter((l) => !l.startsWith('systemctl'))
    .join('\n');
  execFileSync('bash', ['-e', '-c', rollback]);
  assert.equal(readFileSync(`${root}/etc/app/app.conf`, 'utf8'), 'host\n');
  assert.equal(existsSync(`${root}/etc/app/app.conf${BACKUP_SUFFIX}`), false);
  assert.equal(existsSync(`${root}/etc/systemd/system/x@0.service.d`), false);
  assert.equal(existsSync(`${root}/etc/app`), true);
  // The wrapper's directory and the one under it are the plan's; /opt was the host's.
  assert.equal(existsSync(`${root}/opt/numa-java`), false);
  assert.equal(existsSync(`${root}/opt`), true);
  // Run twice: nothing left to do, and no failure.
  execFileSync('bash', ['-e', '-c', rollback]);
});

test("the check block's words: numa_maps' policy names and the servers' size syntax", () => {
  assert.equal(numaMapsPolicy('bind', '1'), 'bind:1');
  assert.equal(numaMapsPolicy('preferred', '0'), 'prefer:0');
  assert.equal(numaMapsPolicy('interleave', '0,1,2'), 'interleave:0-2');
  assert.equal(sizeWord(24, 'GB', 'MB'), '24GB');
  assert.equal(sizeWord(0.25, 'GB', 'MB'), '256MB');
  assert.equal(sizeWord(1.5, 'g', 'm'), '1536m');
});
