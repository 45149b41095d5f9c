import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const child = fileURLToPath(new URL('./exec_child.ts', import.meta.url));

function run(argv: string[], input?: string) {
  return spawnSync(process.execPath, ['--import', 'tsx', child, ...argv], { encoding: 'utf8', input });
}

test("execvp replaces the process: same pid, the command's exit code and stdio", () => {
  const r = run(['sh', '-c', 'echo "$$ $PPID"; read line; echo "got $line"; exit 7'], 'hello\n');
  assert.equal(r.status, 7, r.stderr);
  const [pid, got] = r.stdout.trim().split('\n');
  assert.equal(Number(pid!.split(' ')[0]), r.pid);
  assert.equal(got, 'got hello');
});

test('execvp passes signals through: the command dies of its own signal', () => {
  const r = run(['sh', '-c', 'kill -TERM $$']);
  assert.equal(r.signal, 'SIGTERM');
});

test("the command does not inherit Node's ignored SIGPIPE and SIGXFSZ", () => {
  const r = run(['grep', '^SigIgn', '/proc/self/status']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^SigIgn:\s+0+$/m);
});

test('a command that cannot be executed fails with ENOENT/EACCES, not a crash', () => {
  const missing = run(['numakit-no-such-command']);
  assert.equal(missing.status, 127);
  assert.equal(missing.stderr.trim(), 'execvp (numakit-no-such-command): No such file or directory (ENOENT)');
  const dir = mkdtempSync(join(tmpdir(), 'numakit-exec-'));
  try {
    const script = join(dir, 'not-executable');
    writeFileSync(script, '#!/bin/sh\n', { mode: 0o644 }); // no x bit: EACCES even for root
    const notExecutable = run([script]);
    assert.equal(notExecutable.status, 127);
    assert.match(notExecutable.stderr, /Permission denied \(EACCES\)/);
  } finally {
    rmSync(dir, { recursive: true });
  }
});
