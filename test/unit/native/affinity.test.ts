// Runs against this machine's kernel: any Linux with at least one CPU.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { getAffinity, getcpu, setAffinity } from '../../../src/native/affinity.ts';
import { NativeError } from '../../../src/native/errors.ts';
import { syscallNumber } from '../../../src/native/libc.ts';

function statusField(pid: number | 'self', field: string): string {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  return line!.split(':')[1]!.trim();
}

function expandList(list: string): number[] {
  return list.split(',').flatMap((part) => {
    const [a, b] = part.split('-').map(Number);
    return Array.from({ length: (b ?? a!) - a! + 1 }, (_, i) => a! + i);
  });
}

test("getAffinity(0) is this thread's Cpus_allowed_list", () => {
  assert.deepEqual(getAffinity(0), expandList(statusField('self', 'Cpus_allowed_list')));
});

test('setAffinity pins the calling thread and getcpu then reports that CPU', () => {
  const before = getAffinity();
  const cpu = before[before.length - 1]!;
  try {
    setAffinity(0, [cpu]);
    assert.deepEqual(getAffinity(), [cpu]);
    assert.equal(getcpu().cpu, cpu);
    assert.equal(getcpu().node, 0);
  } finally {
    setAffinity(0, before);
  }
  assert.deepEqual(getAffinity(), before);
});

test('affinity of a child process can be set and read by pid', async () => {
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  await once(child, 'spawn');
  try {
    const cpu = getAffinity()[0]!;
    setAffinity(child.pid!, [cpu]);
    assert.deepEqual(getAffinity(child.pid!), [cpu]);
    assert.equal(statusField(child.pid!, 'Cpus_allowed_list'), String(cpu));
  } finally {
    child.kill();
  }
});

test('a pid that does not exist is ESRCH with a readable message', () => {
  const dead = 4194304 + 1; // above any pid_max (PID_MAX_LIMIT)
  assert.throws(
    () => getAffinity(dead),
    (err: unknown) => {
      assert.ok(err instanceof NativeError);
      assert.equal(err.code, 'ESRCH');
      assert.match(err.message, /^sched_getaffinity \(pid 4194305\): No such process \(ESRCH\)/);
      return true;
    },
  );
  assert.throws(() => setAffinity(dead, [0]), { code: 'ESRCH' });
});

test('a CPU that does not exist is EINVAL from the kernel', () => {
  assert.throws(() => setAffinity(0, [4000]), { code: 'EINVAL', syscall: 'sched_setaffinity' });
  assert.throws(() => setAffinity(0, []), /the CPU list is empty/);
});

test('setAffinity(0) inside a worker_thread pins only that thread', async () => {
  const before = getAffinity();
  const cpu = before[0]!;
  const worker = new Worker(new URL('./affinity_worker.mjs', import.meta.url), {
    workerData: { cpu },
  });
  const [inWorker] = (await once(worker, 'message')) as [number[]];
  await worker.terminate();
  assert.deepEqual(inWorker, [cpu]);
  assert.deepEqual(getAffinity(), before);
});

test('syscall numbers per architecture', () => {
  assert.equal(syscallNumber('mbind', 'x64'), 237);
  assert.equal(syscallNumber('set_mempolicy', 'arm64'), 237);
  assert.equal(syscallNumber('move_pages', 'arm64'), 239);
  assert.throws(() => syscallNumber('mbind', 'ppc64'), /no syscall table for architecture 'ppc64'/);
});
