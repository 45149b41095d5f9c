// mbind, move_pages, get_mempolicy(MPOL_F_ADDR) and migrate_pages on a buffer of this process,
// against this machine's kernel on node 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NativeError } from '../../../src/native/errors.ts';
import { MPOL_MF_MOVE, MPOL_MF_STRICT, mbind } from '../../../src/native/mbind.ts';
import { addressOf, pageAddresses, pageAlignedRange, pageSize } from '../../../src/native/memory.ts';
import { MPOL_BIND, MPOL_INTERLEAVE, getMempolicy, pageNode } from '../../../src/native/mempolicy.ts';
import { migratePages } from '../../../src/native/migrate_pages.ts';
import { decodeStatus, movePages, queryPages } from '../../../src/native/move_pages.ts';

function touchedBuffer(pages: number): Buffer {
  const buf = Buffer.alloc(pages * pageSize());
  for (let i = 0; i < buf.length; i += 512) buf[i] = 1;
  return buf;
}

test('addressOf works on buffers, typed arrays and a SharedArrayBuffer', () => {
  const buf = Buffer.alloc(16);
  assert.equal(typeof addressOf(buf), 'bigint');
  assert.equal(addressOf(buf.subarray(4)), addressOf(buf) + 4n);
  assert.ok(addressOf(new SharedArrayBuffer(64)) > 0n);
});

test('pageAlignedRange keeps the whole pages inside a buffer', () => {
  const buf = Buffer.alloc(3 * pageSize());
  const range = pageAlignedRange(buf);
  assert.equal(range.addr % BigInt(pageSize()), 0n);
  assert.ok(range.addr >= addressOf(buf));
  assert.ok(range.length >= 2 * pageSize());
  assert.equal(pageAddresses(range).length, range.length / pageSize());
  assert.throws(() => pageAlignedRange(Buffer.alloc(100)), /holds no whole page/);
});

test('move_pages query mode reports node 0 for touched pages', () => {
  const buf = touchedBuffer(8);
  const status = queryPages(pageAddresses(pageAlignedRange(buf)));
  assert.ok(status.length >= 7);
  for (const s of status) assert.deepEqual(s, { kind: 'node', node: 0 });
});

test('move_pages reports an unmapped page as a per-page errno, not a failure', () => {
  const [page] = pageAddresses(pageAlignedRange(touchedBuffer(2)));
  const status = queryPages([page!, 0n]);
  assert.deepEqual(status[0], { kind: 'node', node: 0 });
  assert.equal(status[1]!.kind, 'error');
  assert.match((status[1] as { code: string }).code, /^(EFAULT|ENOENT)$/);
});

test('decodeStatus turns negative entries into errno names', () => {
  assert.deepEqual(decodeStatus(Int32Array.of(0, 1, -2, -14)), [
    { kind: 'node', node: 0 },
    { kind: 'node', node: 1 },
    { kind: 'error', errno: 2, code: 'ENOENT' },
    { kind: 'error', errno: 14, code: 'EFAULT' },
  ]);
});

test('move_pages moves pages to node 0 and a missing node is ENODEV', () => {
  const pages = pageAddresses(pageAlignedRange(touchedBuffer(4)));
  const moved = movePages(
    pages,
    pages.map(() => 0),
  );
  assert.equal(moved.notMoved, 0);
  for (const s of moved.status) assert.deepEqual(s, { kind: 'node', node: 0 });
  assert.throws(
    () =>
      movePages(
        pages,
        pages.map(() => 5),
      ),
    (err: unknown) => {
      assert.ok(err instanceof NativeError);
      assert.equal(err.code, 'ENODEV');
      return true;
    },
  );
  assert.throws(() => movePages(pages, [0]), /pages but 1 nodes/);
});

test('mbind binds a buffer to node 0 and get_mempolicy sees it on its address', () => {
  const range = pageAlignedRange(touchedBuffer(8));
  mbind(range, { mode: MPOL_BIND, nodes: [0] }, { flags: MPOL_MF_MOVE | MPOL_MF_STRICT });
  assert.deepEqual(getMempolicy({ addr: range.addr }), { mode: MPOL_BIND, nodes: [0], modeFlags: 0 });
  assert.equal(pageNode(range.addr), 0);
  mbind(range, { mode: MPOL_INTERLEAVE, nodes: [0] });
  assert.equal(getMempolicy({ addr: range.addr }).mode, MPOL_INTERLEAVE);
});

test('mbind errors: unaligned start and a missing node are EINVAL with a hint', () => {
  const range = pageAlignedRange(touchedBuffer(4));
  assert.throws(
    () => mbind({ addr: range.addr + 1n, length: pageSize() }, { mode: MPOL_BIND, nodes: [0] }),
    /page aligned/,
  );
  assert.throws(() => mbind(range, { mode: MPOL_BIND, nodes: [5] }), {
    message: /^mbind \(0x[0-9a-f]+\+\d+, bind, nodes 5\): Invalid argument \(EINVAL\); a node may not exist/,
  });
});

test('migrate_pages from node 0 to node 0 moves nothing and reports 0 left behind', () => {
  assert.equal(migratePages(0, { from: [0], to: [0] }), 0);
  assert.throws(() => migratePages(4194305, { from: [0], to: [0] }), { code: 'ESRCH' });
});
