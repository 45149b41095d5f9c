// deploy/ansible against three real multi-node hosts: three guests with different topologies
// booted in parallel, each reachable only over SSH on a 127.0.0.1 port, none with numakit: the
// first play installs the single executable (npm run build:sea) from the controller. gather brings back
// three reports that numakit fleet report reads; apply with a forced failure on the second
// batch (host lab-c verifies with --fail-on warning while KSM merges across its nodes) leaves
// the canary applied and the failed batch rolled back byte for byte; rollback restores every
// host; a second apply or rollback changes nothing and the recap says so; apply --check prints
// each host's changes and writes nothing. Six plays, one boot.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { numakitOnHost } from './numakit.js';
import { REPO_ROOT } from './setup.js';
import { bootSshGuests, SSH_OPTS, type SshGuest, type SshGuests } from './ssh_guests.js';
import type { Topology } from './topology.js';

const A: Topology = { name: 'ansible-a', nodes: 2, cpus: 1, memMiB: 256 };
const B: Topology = {
  name: 'ansible-b',
  nodes: 3,
  cpus: [1, 1, 0],
  memMiB: [256, 256, 128],
  memoryOnly: [2],
  distances: [
    [10, 21, 30],
    [21, 10, 32],
    [30, 32, 10],
  ],
};
const C: Topology = {
  name: 'ansible-c',
  nodes: 4,
  cpus: 1,
  memMiB: 192,
  distances: [
    [10, 16, 22, 28],
    [16, 10, 16, 22],
    [22, 16, 10, 16],
    [28, 22, 16, 10],
  ],
};

const THP = '/sys/kernel/mm/transparent_hugepage';
const KNOBS = [
  '/proc/sys/kernel/numa_balancing',
  `${THP}/enabled`,
  `${THP}/defrag`,
  '/proc/sys/vm/zone_reclaim_mode',
  '/proc/sys/vm/swappiness',
  '/sys/kernel/mm/ksm/run',
];
const STATE = `for f in ${KNOBS.join(' ')} /proc/irq/*/smp_affinity_list; do echo "== $f"; cat "$f"; done`;
const ANSIBLE = join(REPO_ROOT, 'deploy', 'ansible');
const SEA = join(REPO_ROOT, 'dist', 'exe', `numakit-linux-${process.arch}`);
const HAS_NUMAKIT = 'command -v numakit || ls /usr/local/bin/numakit || echo "no numakit"';
const TIMEOUT_MS = Number(process.env['LAB_ANSIBLE_TIMEOUT_MS'] ?? 1_500_000);

let lab: SshGuests;
let work: string;
const initial = new Map<string, string>();
const started = Date.now();

/** The inventory, in YAML so that numakit_command is a list. */
function inventory(guests: readonly SshGuest[], keyFile: string): string {
  const hosts = Object.fromEntries(
    guests.map((g) => [
      g.name,
      {
        ansible_host: '127.0.0.1',
        ansible_port: g.port,
        ...(g.name === 'lab-c' ? { numakit_fail_on: 'warning' } : {}),
      },
    ]),
  );
  return JSON.stringify(
    {
      numakit: {
        hosts,
        vars: {
          ansible_user: 'root',
          ansible_ssh_private_key_file: keyFile,
          ansible_ssh_common_args: SSH_OPTS.join(' '),
          ansible_python_interpreter: '/usr/bin/python3',
          // Installed by the role from the controller (no numakit_command: the installed one).
          numakit_executable: SEA,
          numakit_state_dir: '/var/lib/numakit',
        },
      },
    },
    null,
    2,
  );
}

interface Play {
  code: number | null;
  out: string;
  recap: Record<string, Record<string, number>>;
}

function playbook(name: string, ...args: string[]): Play {
  const t0 = Date.now();
  const r = spawnSync(
    'ansible-playbook',
    ['-i', join(work, 'inventory.yml'), join(ANSIBLE, 'playbooks', `${name}.yml`), ...args],
    {
      encoding: 'utf8',
      cwd: ANSIBLE,
      timeout: TIMEOUT_MS,
      // Ansible's own directories private to the run (nothing else on the host shares its temp files).
      env: {
        ...process.env,
        ANSIBLE_CONFIG: join(ANSIBLE, 'ansible.cfg'),
        ANSIBLE_NOCOLOR: '1',
        ANSIBLE_HOME: join(work, 'ansible-home'),
        ANSIBLE_LOCAL_TEMP: join(work, 'ansible-home', 'tmp'),
        // The SSH master connections too: Ansible 2.14 keeps them in ~/.ansible/cp whatever ANSIBLE_HOME says.
        ANSIBLE_SSH_CONTROL_PATH_DIR: join(work, 'cp'),
      },
    },
  );
  const out = `${r.stdout}\n${r.stderr}`;
  console.log(`# ${name} ${args.join(' ')}: ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  const recap: Play['recap'] = {};
  for (const m of out.matchAll(/^(\S+)\s+:\s+(ok=.*)$/gm))
    recap[m[1]!] = Object.fromEntries([...m[2]!.matchAll(/(\w+)=(\d+)/g)].map((x) => [x[1]!, Number(x[2])]));
  return { code: r.status, out, recap };
}

function state(g: SshGuest): string {
  const r = lab.ssh(g, STATE);
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

const guest = (name: string) => lab.guests.find((g) => g.name === name)!;

describe('deploy/ansible on three multi-node hosts', () => {
  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'numakit-lab-ansible-'));
    execFileSync(process.execPath, [join(REPO_ROOT, 'scripts', 'build-sea.mjs')], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    lab = await bootSshGuests(
      [
        { name: 'lab-a', topology: A },
        { name: 'lab-b', topology: B },
        // KSM merging across nodes: doctor warns, so lab-c's --fail-on warning verification fails.
        { name: 'lab-c', topology: C, setup: 'echo 1 > /sys/kernel/mm/ksm/run' },
      ],
      TIMEOUT_MS,
    );
    writeFileSync(join(work, 'inventory.yml'), inventory(lab.guests, lab.keyFile));
    for (const g of lab.guests) {
      initial.set(g.name, state(g));
      const r = lab.ssh(g, HAS_NUMAKIT);
      assert.equal(r.stdout.trim().split('\n').at(-1), 'no numakit', `${g.name} starts without numakit: ${r.stdout}`);
    }
    console.log(`# three guests up over SSH after ${((Date.now() - started) / 1000).toFixed(0)} s`);
  });
  after(async () => {
    if (lab) {
      const results = await lab.release();
      console.log(
        `# guests down after ${((Date.now() - started) / 1000).toFixed(0)} s (codes ${results.map((r) => r.code).join(', ')})`,
      );
    }
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('gather: a snapshot and a doctor report of each host, which numakit fleet report reads as three classes', () => {
    const dir = join(work, 'gathered');
    const p = playbook('gather', '-e', `numakit_gather_dir=${dir}`);
    assert.equal(p.code, 0, p.out);
    assert.deepEqual(readdirSync(dir).sort(), [
      'lab-a.json',
      'lab-a.tar.gz',
      'lab-b.json',
      'lab-b.tar.gz',
      'lab-c.json',
      'lab-c.tar.gz',
    ]);
    const r = numakitOnHost(['fleet', 'report', '--json', dir]);
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout) as { hosts: { host: string; sources: string[] }[]; classes: { label: string }[] };
    assert.deepEqual(
      j.hosts.map((h) => [h.host, h.sources.length]),
      [
        ['lab-a', 2],
        ['lab-b', 2],
        ['lab-c', 2],
      ],
    );
    assert.equal(j.classes.length, 3, j.classes.map((c) => c.label).join('; '));
    for (const g of lab.guests)
      assert.equal(
        lab.ssh(g, '/usr/local/bin/numakit --version').stdout.trim(),
        'numakit 0.1.0',
        `${g.name}: installed`,
      );
    assert.deepEqual(
      Object.values(p.recap).map((x) => x['failed']),
      [0, 0, 0],
    );
  });

  it('apply --check: each host prints what apply would change, reports changed, and nothing is written', () => {
    // The command the next case runs, previewed as an operator would: the same batches.
    const p = playbook(
      'apply',
      '--check',
      '-e',
      'numakit_apply_profile=spark-pinned',
      '-e',
      '{"numakit_serial": [1, 2]}',
    );
    assert.equal(p.code, 0, p.out);
    // The debug task's lines (callback_result_format yaml): "ok: [HOST] => (item=PATH) =>  msg: PATH: OLD -> NEW".
    for (const g of lab.guests)
      assert.match(p.out, new RegExp(`ok: \\[${g.name}\\] => \\(item=(\\S+)\\) =>\\s+msg: '?\\1: .* -> `), g.name);
    for (const g of lab.guests) assert.equal(state(g), initial.get(g.name), `${g.name}: nothing written`);
    assert.ok(
      Object.values(p.recap).every((x) => x['changed']! >= 1 && x['failed'] === 0),
      p.out,
    );
  });

  it('apply with a failure in the second batch: the canary stays applied, the batch is rolled back byte for byte, the rollout stops', () => {
    const p = playbook('apply', '-e', 'numakit_apply_profile=spark-pinned', '-e', '{"numakit_serial": [1, 2]}');
    assert.notEqual(p.code, 0, 'the play fails');
    assert.match(
      p.out,
      /batch lab-b, lab-c failed on lab-c \(lab-c: doctor --fail-on warning exited 1\);\s+rolled back change set \d+/,
    );
    assert.notEqual(state(guest('lab-a')), initial.get('lab-a'), 'the canary is applied');
    assert.equal(state(guest('lab-b')), initial.get('lab-b'), 'lab-b is back byte for byte');
    assert.equal(state(guest('lab-c')), initial.get('lab-c'), 'lab-c is back byte for byte');
    assert.equal(p.recap['lab-a']?.['changed'], 1);
  });

  it('apply is idempotent: run again on the applied canary, it changes nothing and says so', () => {
    const again = playbook('apply', '-e', 'numakit_apply_profile=spark-pinned', '--limit', 'lab-a');
    assert.equal(again.code, 0, again.out);
    assert.equal(again.recap['lab-a']?.['changed'], 0, again.out);
  });

  it('rollback restores every host byte for byte; a second rollback changes nothing', () => {
    const p = playbook('rollback');
    assert.equal(p.code, 0, p.out);
    assert.deepEqual(
      Object.entries(p.recap).map(([h, x]) => [h, x['changed']]),
      [
        ['lab-a', 1],
        ['lab-b', 0],
        ['lab-c', 0],
      ],
      p.out,
    );
    for (const g of lab.guests) assert.equal(state(g), initial.get(g.name), `${g.name} restored`);
    const again = playbook('rollback');
    assert.equal(again.code, 0, again.out);
    assert.deepEqual(
      Object.values(again.recap).map((x) => x['changed']),
      [0, 0, 0],
      again.out,
    );
    console.log(`# playbooks done after ${((Date.now() - started) / 1000).toFixed(0)} s`);
  });
});
