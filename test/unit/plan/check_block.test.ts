// PLAN.md's check block run by bash as an operator would, against a fake host: /proc and
// /sys/fs/cgroup under a temporary root (the block's absolute paths rewritten to it) and a
// systemctl on PATH that answers from that root. Every thread of a unit is read; one thread on
// other CPUs fails the block and is named, an ended thread is skipped, a unit with none fails.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { planWorkload } from '../../../src/policy/plan/index.js';
import { planBlocks } from '../../../src/render/plan/blocks.js';
import { threadsCheck } from '../../../src/render/plan/checks.js';
import { renderPlan } from '../../../src/render/plan/index.js';
import { exampleMachine } from './machines.js';

const tmp = mkdtempSync(join(tmpdir(), 'numakit-check-block-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** The check block of a per-node service plan on cxl-3node: ingest@0 on 0-7,16-23, ingest@1 on 8-15,24-31. */
const files = await renderPlan(
  planWorkload('service', exampleMachine('cxl-3node'), {
    name: 'ingest',
    exec: '/usr/local/bin/ingest --threads 8',
    'per-node': true,
  }),
);
const CHECK = planBlocks(files.at(-1)!.content).get('check')!;
const UNITS = [
  { unit: 'ingest@0', cpus: '0-7,16-23', node: 0, pids: [101, 102], threads: [101, 111, 112, 102] },
  { unit: 'ingest@1', cpus: '8-15,24-31', node: 1, pids: [201], threads: [201, 211, 212, 213] },
];
const MEMORY_MAX = /MemoryMax --value ingest@0\)" = '(\d+)'/.exec(CHECK)?.[1];

/** systemctl as the block uses it: is-active --quiet U, show -p KEY --value U (from ROOT/units/U/KEY). */
const SYSTEMCTL = `#!/bin/bash
set -eu
root=\${FAKE_ROOT:?}
case "$1" in
  is-active) [ -e "$root/units/$3/active" ] ;;
  show) cat "$root/units/$5/$3" ;;
  *) echo "fake systemctl: $*" >&2; exit 2 ;;
esac
`;

const status = (tid: number, cpus: string) =>
  `Name:\tingest\nTgid:\t${tid}\nPid:\t${tid}\nCpus_allowed:\tffff\nCpus_allowed_list:\t${cpus}\nMems_allowed_list:\t0-2\n`;

/** A host where every unit runs as planned; `change` then alters it. */
function fakeHost(name: string, change: (root: string) => void = () => {}): string {
  const root = join(tmp, name);
  for (const u of UNITS) {
    const cg = join(root, 'sys/fs/cgroup/system.slice', `${u.unit}.service`);
    mkdirSync(cg, { recursive: true });
    writeFileSync(join(cg, 'cgroup.threads'), u.threads.map((t) => `${t}\n`).join(''));
    writeFileSync(join(cg, 'cgroup.procs'), u.pids.map((t) => `${t}\n`).join(''));
    for (const t of u.threads) {
      mkdirSync(join(root, 'proc', `${t}`), { recursive: true });
      writeFileSync(join(root, 'proc', `${t}`, 'status'), status(t, u.cpus));
    }
    writeFileSync(
      join(root, 'proc', `${u.pids[0]}`, 'numa_maps'),
      `7f0000000000 bind:${u.node} anon=2048 dirty=2048 N${u.node}=2048 kernelpagesize_kB=4\n`,
    );
    const state = join(root, 'units', u.unit);
    mkdirSync(state, { recursive: true });
    writeFileSync(join(state, 'active'), '');
    writeFileSync(join(state, 'ControlGroup'), `/system.slice/${u.unit}.service\n`);
    writeFileSync(join(state, 'MainPID'), `${u.pids[0]}\n`);
    writeFileSync(join(state, 'MemoryMax'), `${MEMORY_MAX}\n`);
  }
  change(root);
  return root;
}

/** The awks an operator's host may have as awk: gawk, mawk (Debian's default), busybox's. */
function awks(): { name: string; bin: string }[] {
  const found: { name: string; bin: string }[] = [];
  for (const name of ['gawk', 'mawk', 'busybox']) {
    const path = ['/usr/bin', '/bin'].map((d) => join(d, name)).find((p) => existsSync(p));
    if (path === undefined) continue;
    const bin = join(tmp, `bin-${name}`);
    mkdirSync(bin, { recursive: true });
    if (name === 'busybox') writeFileSync(join(bin, 'awk'), `#!/bin/sh\nexec ${path} awk "$@"\n`, { mode: 0o755 });
    else symlinkSync(path, join(bin, 'awk'));
    writeFileSync(join(bin, 'systemctl'), SYSTEMCTL);
    chmodSync(join(bin, 'systemctl'), 0o755);
    found.push({ name, bin });
  }
  return found;
}
const AWKS = awks();

/** Runs the check block as PLAN.md's own extraction would, with bash -e, on ROOT. */
function runCheck(root: string, bin: string): { code: number | null; stderr: string } {
  const text = CHECK.replaceAll('/proc/', `${root}/proc/`).replaceAll('/sys/fs/cgroup', `${root}/sys/fs/cgroup`);
  const r = spawnSync('bash', ['-e'], {
    input: text,
    encoding: 'utf8',
    env: { PATH: `${bin}:/usr/bin:/bin`, FAKE_ROOT: root },
  });
  return { code: r.status, stderr: r.stderr };
}

test('the check block reads every thread of a unit with one awk, not a process per thread', () => {
  assert.equal(CHECK.match(/cgroup\.threads/g)?.length, 1, CHECK);
  assert.equal(CHECK.match(/^threads_on ingest@[01] /gm)?.length, 2, CHECK);
  assert.doesNotMatch(CHECK, /while read/);
  assert.ok(MEMORY_MAX !== undefined, CHECK);
  assert.ok(
    AWKS.some((a) => a.name === 'gawk' || a.name === 'mawk'),
    'no awk to run the block with',
  );
});

for (const { name, bin } of AWKS) {
  test(`${name}: a host as planned passes; a thread that ended meanwhile is skipped`, () => {
    assert.deepEqual(runCheck(fakeHost(`${name}-ok`), bin), { code: 0, stderr: '' });
    const ended = fakeHost(`${name}-ended`, (root) => {
      const cg = join(root, 'sys/fs/cgroup/system.slice/ingest@1.service/cgroup.threads');
      writeFileSync(cg, '201\n211\n299\n212\n213\n');
    });
    assert.deepEqual(runCheck(ended, bin), { code: 0, stderr: '' });
  });

  test(`${name}: one thread of one unit on other CPUs fails the block and is named`, () => {
    const root = fakeHost(`${name}-stray`, (r) => writeFileSync(join(r, 'proc/212/status'), status(212, '0-31')));
    const r = runCheck(root, bin);
    assert.equal(r.code, 1);
    assert.equal(r.stderr.trim(), 'ingest@1: thread 212 is on CPUs 0-31, not 8-15,24-31');
    // The first unit's thread list is read to its end too: a stray thread there is caught.
    const first = fakeHost(`${name}-stray0`, (r) => writeFileSync(join(r, 'proc/112/status'), status(112, '0-7')));
    assert.equal(runCheck(first, bin).stderr.trim(), 'ingest@0: thread 112 is on CPUs 0-7, not 0-7,16-23');
  });

  test(`${name}: a unit whose cgroup has no thread left fails`, () => {
    const root = fakeHost(`${name}-empty`, (r) =>
      writeFileSync(join(r, 'sys/fs/cgroup/system.slice/ingest@0.service/cgroup.threads'), ''),
    );
    const r = runCheck(root, bin);
    assert.equal(r.code, 1);
    assert.equal(r.stderr.trim(), 'ingest@0: no thread found');
  });
}

test("a unit's line names the unit and its CPU list; threads_on is defined once, before the first use", () => {
  assert.equal(threadsCheck('redis-numa@6379', '0-15,32-47'), 'threads_on redis-numa@6379 0-15,32-47');
  const lines = CHECK.split('\n');
  assert.equal(lines.filter((l) => l.startsWith('threads_on() {')).length, 1);
  assert.ok(lines.indexOf('threads_on() {') < lines.findIndex((l) => l.startsWith('threads_on ingest@0 ')));
});
