// `numakit plan` inside a cgroup whose cpuset keeps CPUs or memory nodes from it (a container,
// a slice with AllowedCPUs=/AllowedMemoryNodes=): it sizes from the allowed CPUs and memory
// nodes only, and PLAN.md says so: a first derivation naming the cgroup files, and a note per
// node left out in whole or in part. Fixture: test/fixtures/harden/cgroup-cpuset (two nodes of
// four CPUs, 16 GiB each), copied and given the cpuset of each case.
import assert from 'node:assert/strict';
import { cpSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runMain, TEST_DIR } from '../../helpers/cli.js';

const FIXTURE = join(TEST_DIR, 'fixtures/harden/cgroup-cpuset');
const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** The fixture with job1's cpuset set to `cpus` and (when given) `mems`. */
function tree(cpus: string, mems?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'numakit-plan-cpuset-'));
  dirs.push(dir);
  cpSync(FIXTURE, dir, { recursive: true });
  const job = join(dir, 'sys/fs/cgroup/batch.slice/job1');
  writeFileSync(join(job, 'cpuset.cpus.effective'), `${cpus}\n`);
  if (mems !== undefined) {
    writeFileSync(join(dir, 'sys/fs/cgroup/cpuset.mems.effective'), '0-1\n');
    writeFileSync(join(job, 'cpuset.mems.effective'), `${mems}\n`);
  }
  return dir;
}

interface PlanJson {
  derivations: { what: string; formula: string; value: string }[];
  notes: string[];
  files: { path: string; content: string }[];
}

async function plan(dir: string, ...args: string[]): Promise<PlanJson> {
  const r = await runMain([
    '--root',
    dir,
    'plan',
    ...(args[0] === 'spark-standalone' ? [] : ['service', '--name', 'ingest', '--exec', '/usr/local/bin/ingest']),
    '--json',
    ...args,
  ]);
  assert.equal(r.code, 0, r.err);
  return JSON.parse(r.out) as PlanJson;
}

const unit = (p: PlanJson, n: number) =>
  p.files.find((f) => f.path.endsWith(`ingest@${n}.service.d/50-numakit-numa.conf`))?.content ?? '';

describe('plan inside a cpuset', () => {
  it('a node whose CPUs are all outside the cpuset gets no work; the first derivation names the cgroup file', async () => {
    const p = await plan(tree('0-3'), '--per-node');
    assert.deepEqual(p.derivations[0], {
      what: "this process's cgroup allows",
      formula:
        "CPUs 0-3 (/sys/fs/cgroup/batch.slice/job1/cpuset.cpus.effective); of the machine's 8 online CPUs 4 are allowed",
      value: '4 CPUs on node 0',
    });
    assert.ok(
      p.notes.includes(
        "node 1: none of its CPUs (4-7) is allowed to this process (cgroup /batch.slice/job1's cpuset allows CPUs 0-3), so it gets no work.",
      ),
      p.notes.join('\n'),
    );
    assert.match(unit(p, 0), /^CPUAffinity=0-3$/m);
    assert.equal(unit(p, 1), '', 'no instance on node 1');
  });

  it('a node partly in the cpuset is sized from its allowed CPUs only', async () => {
    const p = await plan(tree('2-3,6'), '--per-node');
    assert.match(p.derivations[0]!.value, /^3 CPUs on nodes 0-1$/);
    assert.ok(
      p.notes.includes(
        "node 1: CPUs 4-5,7 are outside this process's cpuset (cgroup /batch.slice/job1's cpuset allows CPUs 2-3,6); the plan sizes node 1 from CPUs 6.",
      ),
      p.notes.join('\n'),
    );
    assert.match(unit(p, 0), /^CPUAffinity=2-3$/m);
    assert.match(unit(p, 1), /^CPUAffinity=6$/m);
  });

  it('memory nodes outside cpuset.mems get no work and no memory', async () => {
    const p = await plan(tree('0-7', '0'), '--per-node');
    assert.match(
      p.derivations[0]!.formula,
      /^memory nodes 0 \(\/sys\/fs\/cgroup\/batch\.slice\/job1\/cpuset\.mems\.effective\); of the machine's 8 online CPUs 8 are allowed$/,
    );
    assert.equal(p.derivations[0]!.value, '4 CPUs on node 0');
    assert.ok(
      p.notes.some((n) => n.startsWith("node 1: its memory is outside cgroup /batch.slice/job1's memory nodes (0,")),
      p.notes.join('\n'),
    );
    assert.equal(unit(p, 1), '');
  });

  it("the cgroup's memory.max (the smallest on its path) is checked against the plan's whole commitment", async () => {
    const dir = tree('0-7');
    writeFileSync(join(dir, 'sys/fs/cgroup/batch.slice/memory.max'), `${8 * 1024 ** 3}\n`);
    writeFileSync(join(dir, 'sys/fs/cgroup/batch.slice/job1/memory.max'), 'max\n');
    const p = await plan(dir, 'spark-standalone');
    assert.match(
      p.derivations[0]!.formula,
      /^memory\.max 8 GiB \(\/sys\/fs\/cgroup\/batch\.slice\/memory\.max\); of the machine's 8 online CPUs 8 are allowed$/,
    );
    const check = p.derivations.find((d) => d.what === "committed in all, against this cgroup's limit");
    assert.match(
      check?.formula ?? '',
      /^(\d+(\.\d+)?) \+ \1 = \d+(\.\d+)? GiB; memory\.max of cgroup \/batch\.slice \(\/sys\/fs\/cgroup\/batch\.slice\/memory\.max\) = 8 GiB$/,
    );
    assert.match(check!.value, /^over by \d+(\.\d+)? GiB$/);
    assert.ok(
      p.notes.some((n) => /more than the 8 GiB memory\.max of cgroup \/batch\.slice that numakit runs in/.test(n)),
      p.notes.join('\n'),
    );
    // A service's own memory is not known: said, not summed.
    const svc = await plan(dir, '--per-node');
    assert.ok(
      svc.notes.some((n) => n.startsWith('numakit runs in cgroup /batch.slice with a memory.max of 8 GiB')),
      svc.notes.join('\n'),
    );
  });

  it('cgroup v1: memory.limit_in_bytes of the memory hierarchy is checked the same way; its "no limit" and a limit above the machine\'s memory are none', async () => {
    const dir = tree('0-7');
    const v1 = join(dir, 'sys/fs/cgroup/memory/batch.slice');
    mkdirSync(join(v1, 'job1'), { recursive: true });
    writeFileSync(join(dir, 'proc/self/cgroup'), '9:memory:/batch.slice/job1\n0::/batch.slice/job1\n');
    writeFileSync(join(dir, 'sys/fs/cgroup/memory/memory.limit_in_bytes'), '9223372036854771712\n');
    writeFileSync(join(v1, 'memory.limit_in_bytes'), `${8 * 1024 ** 3}\n`);
    writeFileSync(join(v1, 'job1/memory.limit_in_bytes'), '9223372036854771712\n');
    const p = await plan(dir, 'spark-standalone');
    const file = '/sys/fs/cgroup/memory/batch.slice/memory.limit_in_bytes';
    assert.equal(
      p.derivations[0]!.formula,
      `memory.limit_in_bytes 8 GiB (${file}); of the machine's 8 online CPUs 8 are allowed`,
    );
    const check = p.derivations.find((d) => d.what === "committed in all, against this cgroup's limit");
    assert.match(
      check?.formula ?? '',
      new RegExp(
        `^(\\d+(\\.\\d+)?) \\+ \\1 = \\d+(\\.\\d+)? GiB; memory\\.limit_in_bytes of cgroup /batch\\.slice \\(${file.replace(/\./g, '\\.')}\\) = 8 GiB$`,
      ),
    );
    assert.match(check!.value, /^over by \d+(\.\d+)? GiB$/);
    assert.ok(
      p.notes.some((n) =>
        /more than the 8 GiB memory\.limit_in_bytes of cgroup \/batch\.slice that numakit runs in/.test(n),
      ),
      p.notes.join('\n'),
    );
    // 64 GiB on a 32 GiB machine limits nothing; neither does v1's "no limit".
    writeFileSync(join(v1, 'memory.limit_in_bytes'), `${64 * 1024 ** 3}\n`);
    const none = await plan(dir, 'spark-standalone');
    assert.ok(
      !none.derivations.some((d) => /limit_in_bytes/.test(`${d.formula} ${d.what}`)),
      JSON.stringify(none.derivations),
    );
    assert.ok(!none.notes.some((n) => /limit_in_bytes/.test(n)), none.notes.join('\n'));
  });

  // A snapshot carries what restricts the process that takes it (proc/self/cgroup and status,
  // and the cgroup files they lead to) with or without --processes: topo and plan read from it
  // see what they saw there.
  for (const args of [[], ['--processes']]) {
    it(`a snapshot taken there${args.length === 0 ? ' without --processes' : ' with --processes'} (directory and .tar.gz) carries the cgroup's limits, so a plan from it says the same`, async () => {
      const dir = tree('0-3', '0');
      writeFileSync(join(dir, 'sys/fs/cgroup/batch.slice/memory.max'), `${8 * 1024 ** 3}\n`);
      writeFileSync(
        join(dir, 'proc/self/status'),
        'Name:\tnumakit\nState:\tR (running)\nPid:\t77\nCpus_allowed_list:\t0-3\nMems_allowed_list:\t0\n',
      );
      const live = await plan(dir, '--per-node');
      assert.match(live.derivations[0]!.formula, /^CPUs 0-3 .*; memory\.max 8 GiB .*; memory nodes 0 /);
      for (const out of [join(dir, 'snap'), join(dir, 'snap.tar.gz')]) {
        const s = await runMain(['--root', dir, 'snapshot', out, ...args]);
        assert.equal(s.code, 0, s.err);
        const snapped = await plan(out, '--per-node');
        assert.deepEqual(snapped.derivations[0], live.derivations[0], out);
        assert.deepEqual(snapped.notes, live.notes, out);
        const topo = JSON.parse((await runMain(['--root', out, 'topo', '--json'])).out) as {
          cpus: { id: number; allowed: boolean }[];
        };
        assert.deepEqual(
          topo.cpus.filter((c) => c.allowed).map((c) => c.id),
          [0, 1, 2, 3],
          out,
        );
      }
      assert.equal(
        readFileSync(join(dir, 'snap/proc/self/status'), 'utf8'),
        readFileSync(join(dir, 'proc/self/status'), 'utf8'),
      );
      assert.ok(lstatSync(join(dir, 'snap/proc/self')).isDirectory(), 'proc/self is a directory of the copy');
    });
  }

  it('a cpuset that allows everything changes nothing: no derivation, no note', async () => {
    const whole = await plan(tree('0-7', '0-1'), '--per-node');
    assert.ok(!whole.derivations.some((d) => d.what === "this process's cgroup allows"));
    assert.ok(!whole.notes.some((n) => /cpuset|memory nodes|memory\.max/.test(n)), whole.notes.join('\n'));
    assert.match(unit(whole, 1), /^CPUAffinity=4-7$/m);
  });
});
