// exitNow (src/native/exit_now.ts): the process ends at once with its status and its output
// whole, though a libuv pool thread is blocked in a system call, which process.exit waits for
// (Node joins its pool before it exits); with output still queued it falls back to process.exit.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runUntilDone } from '../../helpers/module_child.js';
import { exitNow } from '../../../src/native/exit_now.js';

const LIBC = fileURLToPath(new URL('../../../src/native/libc.ts', import.meta.url));
const EXIT_NOW = fileURLToPath(new URL('../../../src/native/exit_now.ts', import.meta.url));

/** A child that blocks a pool thread in poll(2) on a pipe nobody writes, says 'done', then ends with `end`(3). */
async function child(end: 'exitNow' | 'process.exit'): Promise<{ code: number | null; out: string }> {
  const script = `
    import { libc } from ${JSON.stringify(LIBC)};
    import { exitNow } from ${JSON.stringify(EXIT_NOW)};
    const c = libc();
    const fds = [0, 0];
    c.pipe2(fds, 0);
    const pfd = Buffer.alloc(8);
    pfd.writeInt32LE(fds[0], 0);
    pfd.writeInt16LE(1, 4);
    c.poll.async(pfd, 1, -1, () => {});
    setTimeout(() => {
      process.stdout.write('done\\n');
      ${end === 'exitNow' ? 'exitNow(3)' : 'process.exit(3)'};
    }, 200);`;
  // Killed 3 s after it said done, if it has not ended by then.
  return runUntilDone(script, 3000);
}

it('exitNow: ends the process with its status and its output whole while a pool thread is blocked in poll(2)', async () => {
  const r = await child('exitNow');
  assert.equal(r.code, 3, r.out);
  assert.equal(r.out, 'done\n');
});

it('process.exit waits for that pool thread (what exitNow avoids)', async () => {
  const r = await child('process.exit');
  assert.match(r.out, /^done\n/);
  assert.equal(r.code, null, `killed 3 s after it said done, still joining its pool: ${r.out}`);
});

it('exitNow: output still queued on a stream, it ends through process.exit (which writes it) instead', () => {
  const calls: number[] = [];
  const exit = process.exit;
  process.exit = ((code: number) => {
    calls.push(code);
    throw new Error('exit');
  }) as typeof process.exit;
  try {
    assert.throws(() => exitNow(4, [{ writableLength: 0 }, { writableLength: 10 }]), /exit/);
  } finally {
    process.exit = exit;
  }
  assert.deepEqual(calls, [4]);
});
