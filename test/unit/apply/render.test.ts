import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChangeSet, PlannedChange } from '../../../src/model/change.js';
import { renderApplied, renderChangeSet, renderJournal, renderPlan } from '../../../src/render/changes.js';
import { grubArguments, renderPersistFiles } from '../../../src/render/changes_persist.js';

const irq = (n: number): PlannedChange => ({
  change: { kind: 'irq-affinity', target: n, value: '0-15', device: 'eth0', reason: 'eth0 is on node 0' },
  path: `proc/irq/${n}/smp_affinity_list`,
  current: '0-31',
  action: 'change',
});
const PLAN: PlannedChange[] = [
  {
    change: { kind: 'service', target: 'irqbalance', value: 'stopped', reason: 'r' },
    path: null,
    current: 'running',
    action: 'change',
  },
  {
    change: { kind: 'service', target: 'ksmtuned', value: 'stopped', reason: 'r' },
    path: null,
    current: 'running',
    action: 'change',
  },
  irq(40),
  irq(41),
  {
    change: { kind: 'sysctl', target: 'kernel.numa_balancing', value: '0', reason: 'r' },
    path: 'proc/sys/kernel/numa_balancing',
    current: '0',
    action: 'same',
  },
  {
    change: { kind: 'sysctl', target: 'kernel.numa_balancing_scan_delay_ms', value: '1000', reason: 'r' },
    path: 'sys/kernel/debug/sched/numa_balancing/scan_delay_ms',
    current: '0',
    action: 'change',
  },
  {
    change: { kind: 'sysfs', target: 'sys/kernel/mm/ksm/run', value: '0', reason: 'r' },
    path: 'sys/kernel/mm/ksm/run',
    current: null,
    action: 'absent',
  },
];

test('the dry run shows path: old -> new, already-set values, and absent targets', () => {
  const text = renderPlan(PLAN, { source: 'test', dryRun: true });
  assert.match(text, /^  service irqbalance: running -> stopped  # r$/m);
  assert.match(
    text,
    /^  \/proc\/irq\/N\/smp_affinity_list for N = 40-41: 0-31 -> 0-15 \[eth0\]  # eth0 is on node 0$/m,
  );
  assert.match(text, /^already set \(1\):\n  \/proc\/sys\/kernel\/numa_balancing: 0$/m);
  assert.match(text, /^not on this machine, skipped \(1\):\n  \/sys\/kernel\/mm\/ksm\/run$/m);
  assert.match(text, /dry run: nothing written/);
});

test('the same knob of many CPUs is one line per old -> new', () => {
  const gov = (cpu: number, current: string | null): PlannedChange => ({
    change: {
      kind: 'sysfs',
      target: `sys/devices/system/cpu/cpu${cpu}/cpufreq/scaling_governor`,
      value: 'performance',
      reason: 'g',
    },
    path: `sys/devices/system/cpu/cpu${cpu}/cpufreq/scaling_governor`,
    current,
    action: current === null ? 'absent' : current === 'performance' ? 'same' : 'change',
  });
  const text = renderPlan(
    [
      gov(0, 'powersave'),
      gov(1, 'powersave'),
      gov(2, 'schedutil'),
      gov(3, 'powersave'),
      gov(4, 'performance'),
      gov(5, null),
      gov(6, null),
    ],
    { source: 'test', dryRun: true },
  );
  assert.match(
    text,
    /^  \/sys\/devices\/system\/cpu\/cpuN\/cpufreq\/scaling_governor for N = 0-1,3: powersave -> performance  # g$/m,
  );
  assert.match(
    text,
    /^  \/sys\/devices\/system\/cpu\/cpu2\/cpufreq\/scaling_governor: schedutil -> performance  # g$/m,
  );
  assert.match(
    text,
    /^already set \(1\):\n  \/sys\/devices\/system\/cpu\/cpu4\/cpufreq\/scaling_governor: performance$/m,
  );
  assert.match(
    text,
    /^not on this machine, skipped \(2\):\n  \/sys\/devices\/system\/cpu\/cpuN\/cpufreq\/scaling_governor for N = 5-6$/m,
  );
});

test('persist: the IRQ unit and script, irqbalance policy script and drop-in, debugfs knobs in tuned, units to disable', () => {
  const files = Object.fromEntries(renderPersistFiles(PLAN, { name: 't' }).map((f) => [f.path, f.text]));
  assert.deepEqual(Object.keys(files).sort(), [
    'numakit/boot.txt',
    'numakit/irq-affinity.sh',
    'numakit/irqbalance-policy.sh',
    'systemd/system/irqbalance.service.d/90-numakit.conf',
    'systemd/system/numakit-irq-affinity.service',
    'tuned/numakit-t/tuned.conf',
  ]);
  assert.match(files['numakit/irq-affinity.sh']!, /^pin '' 'eth0' '0-15'$/m);
  assert.match(files['systemd/system/irqbalance.service.d/90-numakit.conf']!, /IRQBALANCE_ARGS=--policyscript=/);
  assert.match(
    files['tuned/numakit-t/tuned.conf']!,
    /^\/sys\/kernel\/debug\/sched\/numa_balancing\/scan_delay_ms=1000$/m,
  );
  assert.match(files['tuned/numakit-t/tuned.conf']!, /^\[sysctl\]\n# r\nkernel\.numa_balancing=0$/m);
  assert.doesNotMatch(files['tuned/numakit-t/tuned.conf']!, /ksm/);
  assert.match(files['numakit/boot.txt']!, /systemctl disable ksmtuned/);
  assert.doesNotMatch(files['numakit/boot.txt']!, /disable irqbalance/);
});

const knob = (kind: 'sysctl' | 'sysfs', target: string, value: string, path = target): PlannedChange => ({
  change: { kind, target, value, reason: 'r' },
  path,
  current: 'x',
  action: 'change',
});
const gov = (cpu: number, value: string) =>
  knob('sysfs', `sys/devices/system/cpu/cpu${cpu}/cpufreq/scaling_governor`, value);

test("persist: a tuned profile with tuned's own plugins, [sysfs] only for knobs no plugin sets", () => {
  const plan = [
    gov(0, 'performance'),
    gov(1, 'performance'),
    knob('sysfs', 'sys/kernel/mm/transparent_hugepage/enabled', 'never'),
    knob('sysfs', 'sys/kernel/mm/transparent_hugepage/defrag', 'madvise'),
    knob('sysctl', 'vm.swappiness', '10', 'proc/sys/vm/swappiness'),
    knob('sysfs', 'sys/block/nvme0n1/queue/rq_affinity', '2'),
  ];
  const files = renderPersistFiles(plan, { name: 'db', tunedBase: 'throughput-performance' });
  assert.deepEqual(
    files.map((f) => f.path),
    ['tuned/numakit-db/tuned.conf', 'numakit/boot.txt'],
  );
  assert.equal(
    files[0]!.text,
    [
      '# Written by numakit apply --persist; numakit rollback removes it.',
      '[main]',
      'summary=numakit db',
      'include=throughput-performance',
      '',
      '[cpu]',
      '# r',
      'governor=performance',
      '',
      '[vm]',
      '# r',
      'transparent_hugepages=never',
      'transparent_hugepage.defrag=madvise',
      '',
      '[sysctl]',
      '# r',
      'vm.swappiness=10',
      '',
      '[sysfs]',
      '# r',
      '/sys/block/nvme0n1/queue/rq_affinity=2',
      '',
    ].join('\n'),
  );
  assert.match(files[1]!.text, /tuned-adm profile numakit-db/);
});

test('persist: governors with different values stay per-CPU [sysfs] lines; a base alone is still a profile', () => {
  const [mixed] = renderPersistFiles([gov(0, 'performance'), gov(1, 'powersave')], { name: 'm' });
  assert.doesNotMatch(mixed!.text, /\[cpu\]/);
  assert.match(mixed!.text, /^\/sys\/devices\/system\/cpu\/cpu1\/cpufreq\/scaling_governor=powersave$/m);
  const [base] = renderPersistFiles([], { name: 'b', tunedBase: 'latency-performance' });
  assert.equal(base!.path, 'tuned/numakit-b/tuned.conf');
  assert.match(base!.text, /^include=latency-performance$/m);
});

test('GRUB arguments follow numa_balancing and THP enabled', () => {
  assert.deepEqual(
    grubArguments([
      { kind: 'sysctl', target: 'kernel.numa_balancing', value: '1', reason: '' },
      { kind: 'sysfs', target: 'sys/kernel/mm/transparent_hugepage/enabled', value: 'madvise', reason: '' },
      { kind: 'sysctl', target: 'vm.swappiness', value: '10', reason: '' },
    ]),
    ['numa_balancing=enable', 'transparent_hugepage=madvise'],
  );
});

test('journal: an applying set whose process is gone shows as interrupted', () => {
  const cs: ChangeSet = {
    version: 1,
    id: 'X',
    time: '2025-01-01T00:00:00.000Z',
    source: 'profile latency',
    status: 'applying',
    pid: 42,
    planned: 5,
    entries: [],
    files: [],
  };
  assert.match(
    renderJournal([cs], () => false),
    /^X +2025-01-01 00:00:00Z +profile latency +interrupted +0\/5 +0$/m,
  );
  assert.match(
    renderJournal([cs], () => true),
    /applying \(pid 42\)/,
  );
});

test("journal: an agent change set counts its settings and threads, and lists each thread's old affinity", () => {
  const thread = (tid: number, state: 'written' | 'restored') => ({
    pid: 7,
    tid,
    start: 100 + tid,
    comm: 'java',
    old: '0-3',
    value: '2',
    state,
  });
  const cs: ChangeSet = {
    version: 1,
    id: 'A',
    time: '2025-01-01T00:00:00.000Z',
    source: 'agent',
    status: 'applying',
    pid: 42,
    planned: 0,
    files: [],
    entries: [
      {
        change: { kind: 'sysctl', target: 'kernel.numa_balancing', value: '0', reason: 'r' },
        path: 'proc/sys/kernel/numa_balancing',
        old: '1',
        restore: '1',
        state: 'written',
      },
    ],
    threads: [thread(7, 'written'), thread(8, 'restored')],
  };
  assert.match(
    renderJournal([cs], () => true),
    /^A +2025-01-01 00:00:00Z +agent +applying \(pid 42\) +1 \+ 2 thread\(s\) +1$/m,
  );
  const one = renderChangeSet(cs, true);
  assert.match(one, /^  thread 7 of pid 7 \(java\) CPU affinity: 0-3 -> 2  \[written\]$/m);
  assert.match(one, /^  thread 8 of pid 7 \(java\) CPU affinity: 0-3 -> 2  \[restored\]$/m);
});

test('journal ends with a newline, with and without notes', () => {
  const cs: ChangeSet = {
    version: 1,
    id: '1',
    time: '2025-01-01T00:00:00.000Z',
    source: 'profile database',
    status: 'applied',
    pid: 42,
    planned: 1,
    entries: [],
    files: [],
  };
  assert.match(
    renderJournal([cs], () => false),
    /profile database +applied +0\/1 +0\n$/,
  );
  assert.match(
    renderJournal([{ ...cs, error: 'oops' }], () => false),
    /0\/1 +0\n  1: oops\n$/,
  );
});

test("apply's undo hint carries the --state-dir the user gave, quoted for the shell", () => {
  const cs: ChangeSet = {
    version: 1,
    id: '3',
    time: '2025-01-01T00:00:00.000Z',
    source: 'profile database',
    status: 'applied',
    pid: 42,
    planned: 0,
    entries: [],
    files: [],
  };
  assert.equal(renderApplied(cs), 'applied 0 change(s): change set 3. Undo with: numakit rollback 3\n');
  assert.match(renderApplied(cs, { stateDir: '/tmp/st' }), /Undo with: numakit rollback 3 --state-dir \/tmp\/st\n$/);
  assert.match(renderApplied(cs, { stateDir: "/tmp/a b's" }), /--state-dir '\/tmp\/a b'\\''s'\n$/);
});
