// doctor's governor check reads cpufreq's policies (cpu/cpufreq/policyN), not each CPU's link to
// its policy: a policy a CPU is one read a CPU; a shared policy (a cluster, a socket) is two
// reads whatever its CPUs; a cpufreq/ without policies (no driver: a VM) is none. A tree without
// cpufreq/ is read per CPU. The governors are those each CPU's own file gives.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { parseAffected, readGovernors } from '../../../src/sysfs/cpufreq.js';
import { openRoot } from '../../../src/sysfs/root.js';

const base = mkdtempSync(join(tmpdir(), 'numakit-governors-'));
after(() => rmSync(base, { recursive: true, force: true }));
const CPU = 'sys/devices/system/cpu';
const CPUS = Array.from({ length: 16 }, (_, i) => i);

function put(dir: string, rel: string, text: string): void {
  mkdirSync(dirname(join(dir, rel)), { recursive: true });
  writeFileSync(join(dir, rel), text);
}

/** A tree whose policies each govern `per` CPUs; CPU c's governor is gov(c's policy). */
function tree(name: string, per: number, gov: (policy: number) => string): string {
  const dir = join(base, name);
  mkdirSync(join(dir, `${CPU}/cpufreq`), { recursive: true });
  for (let p = 0; p < CPUS.length; p += per) {
    put(dir, `${CPU}/cpufreq/policy${p}/scaling_governor`, `${gov(p)}\n`);
    put(dir, `${CPU}/cpufreq/policy${p}/affected_cpus`, `${CPUS.slice(p, p + per).join(' ')} \n`);
    // As the kernel links each CPU to its policy.
    for (const c of CPUS.slice(p, p + per)) {
      mkdirSync(join(dir, `${CPU}/cpu${c}`), { recursive: true });
      symlinkSync(`../cpufreq/policy${p}`, join(dir, `${CPU}/cpu${c}/cpufreq`));
    }
  }
  return dir;
}

function reading(dir: string): { governors: Map<number, string>; reads: string[] } {
  const reads: string[] = [];
  const root = {
    ...openRoot(dir),
    onAccess: (kind: string, rel: string) => {
      if (kind === 'file') reads.push(rel);
    },
  };
  return { governors: readGovernors(root, CPUS), reads };
}

const expected = (per: number, gov: (p: number) => string) => new Map(CPUS.map((c) => [c, gov(c - (c % per))]));

test('a policy a CPU: its own policy file, one read a CPU, no CPU link', () => {
  const gov = (p: number) => (p < 8 ? 'performance' : 'powersave');
  const { governors, reads } = reading(tree('own', 1, gov));
  assert.deepEqual(governors, expected(1, gov));
  assert.equal(reads.length, CPUS.length);
  assert.deepEqual(
    reads.filter((r) => /cpu\d+\/cpufreq/.test(r)),
    [],
  );
});

test('shared policies: two reads a policy, its governor for each of its CPUs', () => {
  const gov = (p: number) => (p === 4 ? 'schedutil' : 'performance');
  const { governors, reads } = reading(tree('shared', 4, gov));
  assert.deepEqual(governors, expected(4, gov));
  assert.equal(reads.length, 2 * (CPUS.length / 4));
});

test('cpufreq/ without a policy (no driver): no governor, no file read', () => {
  const dir = join(base, 'vm');
  mkdirSync(join(dir, `${CPU}/cpufreq`), { recursive: true });
  const { governors, reads } = reading(dir);
  assert.equal(governors.size, 0);
  assert.deepEqual(reads, []);
});

test('a tree without cpufreq/: each CPU read, as before', () => {
  const dir = join(base, 'old');
  for (const c of CPUS) put(dir, `${CPU}/cpu${c}/cpufreq/scaling_governor`, c % 2 ? 'powersave\n' : 'performance\n');
  const { governors } = reading(dir);
  assert.deepEqual(governors, new Map(CPUS.map((c) => [c, c % 2 ? 'powersave' : 'performance'])));
});

test('parseAffected: the kernel\'s "0 1 2 3 " and an empty (inactive) policy', () => {
  assert.deepEqual(parseAffected('0 1 2 3 \n'), [0, 1, 2, 3]);
  assert.deepEqual(parseAffected('\n'), []);
});
