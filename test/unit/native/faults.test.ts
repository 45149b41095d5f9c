// Every call of the syscall layer failing with each errno the kernel documents for it (and
// those it should never return): a NativeError naming the call, what it acted on, the errno
// and its message, never a crash or a wrong value. move_pages' per-page statuses are decoded,
// and counted as not moved. Faults come from test/helpers/native_faults.ts (interceptLibc);
// "dry" keeps the calls that succeed from changing this process.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { NativeError } from '../../../src/native/errors.js';
import { getAffinity, setAffinity } from '../../../src/native/affinity.js';
import type { FaultableCall } from '../../../src/native/libc.js';
import { mbind, MPOL_MF_MOVE } from '../../../src/native/mbind.js';
import { pageAddresses, pageAlignedRange, pageSize } from '../../../src/native/memory.js';
import { getMempolicy, MPOL_BIND, MPOL_PREFERRED_MANY, setMempolicy } from '../../../src/native/mempolicy.js';
import { migratePages } from '../../../src/native/migrate_pages.js';
import { movePages, queryPages } from '../../../src/native/move_pages.js';
import { FAULTS, FAULT_MESSAGE as MESSAGE, injectNativeFaults } from '../../helpers/native_faults.js';

let restore = () => {};
afterEach(() => restore());

function pages(n: number): bigint[] {
  const buf = Buffer.alloc((n + 1) * pageSize());
  for (let i = 0; i < buf.length; i += 1024) buf[i] = 1;
  return pageAddresses(pageAlignedRange(buf)).slice(0, n);
}

/** Each wrapper: the syscall it makes, the call, and the start of its message. */
const CALLS: Array<[FaultableCall, () => unknown, RegExp]> = [
  ['sched_getaffinity', () => getAffinity(4242), /^sched_getaffinity \(pid 4242\): /],
  ['sched_setaffinity', () => setAffinity(4242, [0]), /^sched_setaffinity \(pid 4242, cpus 0\): /],
  ['set_mempolicy', () => setMempolicy({ mode: MPOL_BIND, nodes: [0] }), /^set_mempolicy \(bind, nodes 0\): /],
  ['get_mempolicy', () => getMempolicy(), /^get_mempolicy: /],
  [
    'mbind',
    () =>
      mbind(pageAlignedRange(Buffer.alloc(4 * pageSize())), { mode: MPOL_BIND, nodes: [0] }, { flags: MPOL_MF_MOVE }),
    /^mbind \(0x[0-9a-f]+\+\d+, bind, nodes 0\): /,
  ],
  ['move_pages', () => movePages(pages(2), [0, 0], { pid: 4242 }), /^move_pages \(pid 4242, 2 pages to nodes 0\): /],
  ['migrate_pages', () => migratePages(4242, { from: [1], to: [0] }), /^migrate_pages \(pid 4242, nodes 1 -> 0\): /],
];

describe('every native call, failing with each errno', () => {
  for (const [call, fn, where] of CALLS) {
    it(`${call}: ${FAULTS.join(', ')}`, () => {
      for (const errno of FAULTS) {
        restore = injectNativeFaults({ fail: [{ call, errno }], dry: true }).restore;
        assert.throws(fn, (e: unknown) => {
          assert.ok(e instanceof NativeError, `${call} ${errno}: ${String(e)}`);
          assert.equal(e.code, errno);
          assert.equal(e.syscall, call);
          assert.match(e.message, where);
          assert.ok(e.message.includes(`${MESSAGE[errno]} (${errno})`), e.message);
          assert.doesNotMatch(e.message, /\n|undefined|NaN/);
          return true;
        });
        restore();
      }
    });
  }

  it('the hints the callers rely on: EPERM of another process names CAP_SYS_NICE, EINVAL of a newer mode the kernel version', () => {
    restore = injectNativeFaults({
      fail: [
        { call: 'migrate_pages', errno: 'EPERM' },
        { call: 'set_mempolicy', errno: 'EINVAL' },
        { call: 'sched_setaffinity', errno: 'ESRCH' },
      ],
      dry: true,
    }).restore;
    assert.throws(
      () => migratePages(4242, { from: [1], to: [0] }),
      /Operation not permitted \(EPERM\); moving another user's process needs CAP_SYS_NICE$/,
    );
    assert.throws(
      () => setMempolicy({ mode: MPOL_PREFERRED_MANY, nodes: [0] }),
      /Invalid argument \(EINVAL\); .*preferred-many needs Linux 5\.15 or later$/,
    );
    assert.throws(() => setAffinity(4242, [0]), /No such process \(ESRCH\); the process or thread has exited$/);
  });

  it('a fault after N calls lets the first N through', () => {
    const f = injectNativeFaults({ fail: [{ call: 'sched_getaffinity', errno: 'EBUSY', after: 2 }] });
    restore = f.restore;
    assert.ok(getAffinity().length > 0);
    assert.ok(getAffinity().length > 0);
    assert.throws(() => getAffinity(), /EBUSY/);
    assert.deepEqual(f.calls, ['sched_getaffinity', 'sched_getaffinity', 'sched_getaffinity']);
  });

  it('after restore, the real calls run again', () => {
    injectNativeFaults({ fail: [{ call: 'sched_getaffinity', errno: 'EPERM' }] }).restore();
    assert.ok(getAffinity().length > 0);
  });
});

describe('move_pages: per-page negative statuses', () => {
  it('a move: each failed page is decoded and counted as not moved; the others say their node', () => {
    restore = injectNativeFaults({ pageStatus: { 1: 'EBUSY', 3: 'ENOMEM', 4: 'EACCES', 5: 'EFAULT' } }).restore;
    const r = movePages(pages(6), [0, 0, 0, 0, 0, 0]);
    assert.equal(r.notMoved, 4);
    assert.deepEqual(
      r.status.map((s) => (s.kind === 'node' ? s.node : s.code)),
      [0, 'EBUSY', 0, 'ENOMEM', 'EACCES', 'EFAULT'],
    );
  });

  it('a query: pages never touched (ENOENT) or not mapped (EFAULT) are statuses, not a failure', () => {
    restore = injectNativeFaults({ pageStatus: { 0: 'ENOENT', 2: 'EFAULT' } }).restore;
    assert.deepEqual(
      queryPages(pages(3)).map((s) => (s.kind === 'node' ? s.node : s.code)),
      ['ENOENT', 0, 'EFAULT'],
    );
  });
});
