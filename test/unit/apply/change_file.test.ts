import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseChangeFile } from '../../../src/policy/tuning/change_file.js';

test('a change file becomes Change[] (values as text, /sys paths root-relative, default reason)', () => {
  const text = [
    'changes:',
    '  - {kind: sysctl, target: vm.swappiness, value: 10}',
    '  - kind: sysfs',
    '    target: /sys/kernel/mm/transparent_hugepage/enabled',
    '    value: never',
    '    reason: JVM heaps',
    '  - {kind: irq-affinity, target: 45, value: 0-15}',
    '  - {kind: service, target: irqbalance, value: stopped}',
    '  - {kind: irqbalance-ban, target: irqbalance, value: "46, 45"}',
    '  - {kind: irqbalance-ban, target: irqbalance, value: none}',
  ].join('\n');
  assert.deepEqual(parseChangeFile(text, 'tune.yaml'), [
    { kind: 'sysctl', target: 'vm.swappiness', value: '10', reason: 'from tune.yaml' },
    { kind: 'sysfs', target: 'sys/kernel/mm/transparent_hugepage/enabled', value: 'never', reason: 'JVM heaps' },
    { kind: 'irq-affinity', target: 45, value: '0-15', reason: 'from tune.yaml' },
    { kind: 'service', target: 'irqbalance', value: 'stopped', reason: 'from tune.yaml' },
    { kind: 'irqbalance-ban', target: 'irqbalance', value: '45,46', reason: 'from tune.yaml' },
    { kind: 'irqbalance-ban', target: 'irqbalance', value: 'none', reason: 'from tune.yaml' },
  ]);
});

const BAD: Array<[string, string, RegExp]> = [
  ['YAML syntax', 'changes: [', /^t\.yaml:1: not valid YAML: /],
  ['no changes key', 'change: []', /^t\.yaml:1: changes: missing: a change file is a map with a "changes:" list$/],
  ['not a map', '- a', /^t\.yaml:1: a change file is a map/],
  ['empty list', 'changes: []', /^t\.yaml:1: changes: at least one change$/],
  ['unknown kind', 'changes:\n  - {kind: grub, target: x, value: y}', /^t\.yaml:2: changes\[0\]\.kind: /],
  [
    'sysfs outside /sys',
    'changes:\n  - {kind: sysctl, target: vm.swappiness, value: 1}\n  - {kind: sysfs, target: /etc/passwd, value: x}',
    /^t\.yaml:3: changes\[1\]\.target: a path under \/sys\//,
  ],
  [
    'sysfs with ..',
    'changes:\n  - {kind: sysfs, target: /sys/../etc/passwd, value: x}',
    /changes\[0\]\.target: a path under \/sys\/ \(no \. or \.\. parts\)/,
  ],
  [
    'bad sysctl name',
    'changes:\n  - {kind: sysctl, target: "vm/swappiness", value: 1}',
    /changes\[0\]\.target: a sysctl name/,
  ],
  [
    'bad CPU list',
    'changes:\n  - {kind: irq-affinity, target: 3, value: "5-2"}',
    /^t\.yaml:2: changes\[0\]\.value: a CPU list/,
  ],
  ['negative IRQ', 'changes:\n  - {kind: irq-affinity, target: -1, value: "0"}', /changes\[0\]\.target: an IRQ number/],
  ['bad service state', 'changes:\n  - {kind: service, target: irqbalance, value: masked}', /changes\[0\]\.value: /],
  ['unknown field', 'changes:\n  - {kind: sysctl, target: vm.swappiness, value: 1, persist: true}', /changes\[0\]/],
];

for (const [name, text, re] of BAD) {
  test(`change file error: ${name} -> one line naming file, line and field`, () => {
    assert.throws(
      () => parseChangeFile(text, 't.yaml'),
      (e: Error) => re.test(e.message) && !e.message.includes('\n') && e.name === 'UsageError',
    );
  });
}
