// The mover's per-page loops in WebAssembly (src/agent/wasm/pages.wat through page_batch.ts),
// against plain JavaScript references of what each must compute: the addresses a batch walks,
// the pages chosen to move (only those on a source node, each to its own target), whether the
// kernel's answer needs asking again, and the count of what moved and what was left behind.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { BatchBuffers } from '../../../src/agent/page_batch.js';

const UNSET = -0x7fffffff;
const [ENOENT, EFAULT, EBUSY, EACCES] = [-2, -14, -16, -13];
const addrsOf = (words: Uint32Array, n: number) =>
  Array.from({ length: n }, (_, i) => words[2 * i + 1]! * 2 ** 32 + words[2 * i]!);

function withTargets(target: [number, number][]): BatchBuffers {
  const b = new BatchBuffers();
  b.setTargets(new Map(target));
  b.ensure(16);
  return b;
}

describe('page loops (WebAssembly)', () => {
  const fills: [string, number, number, number][] = [
    ['base pages from a low address', 0x1000, 4096, 5],
    ['across a 2^32 boundary (the high word carries)', 2 ** 32 - 8192, 4096, 4],
    ['near the top of x86_64 user space (2^47)', 2 ** 47 - 3 * 4096, 4096, 3],
    ['2 MiB huge pages', 0x7f0000000000, 2 * 1048576, 3],
    ['1 GiB huge pages', 0x7f0000000000, 2 ** 30, 3],
  ];
  for (const [name, start, step, count] of fills) {
    it(`fill: ${name}`, () => {
      const b = withTargets([[1, 0]]);
      b.fill(start, step, count);
      assert.deepEqual(
        addrsOf(b.addrs, count),
        Array.from({ length: count }, (_, i) => start + i * step),
      );
      b.setAddr(count, start + 12345 * 4096);
      assert.equal(addrsOf(b.addrs, count + 1)[count], start + 12345 * 4096, 'setAddr writes the same form');
    });
  }

  it('select: only pages on a source node, each with its own target, in order; -errno and unknown nodes are skipped', () => {
    const b = withTargets([
      [2, 0],
      [3, 1],
    ]);
    b.fill(0x10000, 4096, 8);
    b.status.set([2, 0, 3, ENOENT, 5, 1, EFAULT, 2]);
    const n = b.select(8);
    assert.equal(n, 3);
    assert.deepEqual(
      Array.from({ length: n }, (_, i) => b.chosenAddr(i)),
      [0x10000, 0x12000, 0x17000],
    );
    assert.deepEqual([...b.nodes.subarray(0, n)], [0, 1, 0]);
  });

  it('unsure: a slot the kernel did not write, or EBUSY, anywhere in the first n', () => {
    const b = withTargets([[1, 0]]);
    b.status.set([0, 0, EACCES, 0]);
    assert.equal(b.unsure(4, UNSET, EBUSY), false);
    b.status[3] = UNSET;
    assert.equal(b.unsure(4, UNSET, EBUSY), true);
    assert.equal(b.unsure(3, UNSET, EBUSY), false, 'only the first n');
    b.status[0] = EBUSY;
    assert.equal(b.unsure(1, UNSET, EBUSY), true);
  });

  it('tally: ENOENT and EFAULT are not found; on its target counts as moved; the others are left, by index', () => {
    const b = withTargets([[1, 0]]);
    b.nodes.set([0, 0, 0, 2, 2, 0]);
    b.status.set([0, ENOENT, 1, 2, EBUSY, EFAULT]);
    assert.deepEqual(b.tally(6, ENOENT, EFAULT), { found: 4, moved: 2, leftCount: 2 });
    assert.deepEqual([...b.left.subarray(0, 2)], [2, 4]);
  });

  it('node ids past the table grow it; growing the batch keeps the targets', () => {
    const b = new BatchBuffers();
    b.setTargets(new Map([[1500, 3]]));
    b.ensure(10000);
    b.fill(0x1000, 4096, 3);
    b.status.set([1500, 1499, 3]);
    assert.equal(b.select(3), 1);
    assert.deepEqual([b.chosenAddr(0), b.nodes[0]], [0x1000, 3]);
  });

  it('select and tally agree with a JavaScript reference on random statuses', () => {
    const status = fc.oneof(fc.integer({ min: 0, max: 7 }), fc.constantFrom(ENOENT, EFAULT, EBUSY, EACCES, UNSET));
    fc.assert(
      fc.property(
        fc.array(status, { minLength: 1, maxLength: 300 }),
        fc.array(fc.integer({ min: -1, max: 7 }), { minLength: 8, maxLength: 8 }),
        fc.array(status, { minLength: 300, maxLength: 300 }),
        (st, table, after) => {
          const target = new Map(table.flatMap((t, node) => (t >= 0 ? [[node, t] as [number, number]] : [])));
          const b = new BatchBuffers();
          b.setTargets(target);
          b.ensure(st.length);
          b.fill(0x40000000, 4096, st.length);
          b.status.set(st);
          const n = b.select(st.length);
          const want = st.flatMap((s, i) => (target.has(s) ? [[0x40000000 + i * 4096, target.get(s)!]] : []));
          assert.deepEqual(
            Array.from({ length: n }, (_, i) => [b.chosenAddr(i), b.nodes[i]]),
            want,
          );
          b.status.set(after.slice(0, n));
          const t = b.tally(n, ENOENT, EFAULT);
          const found = after
            .slice(0, n)
            .map((s, i) => [s, i] as const)
            .filter(([s]) => s !== ENOENT && s !== EFAULT);
          assert.deepEqual(t, {
            found: found.length,
            moved: found.filter(([s, i]) => s === b.nodes[i]).length,
            leftCount: found.filter(([s, i]) => s !== b.nodes[i]).length,
          });
          assert.deepEqual(
            [...b.left.subarray(0, t.leftCount)],
            found.filter(([s, i]) => s !== b.nodes[i]).map(([, i]) => i),
          );
          assert.equal(
            b.unsure(n, UNSET, EBUSY),
            after.slice(0, n).some((s) => s === UNSET || s === EBUSY),
          );
        },
      ),
      { numRuns: 200 },
    );
  });
});
