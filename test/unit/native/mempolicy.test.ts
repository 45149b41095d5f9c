// Runs against this machine's kernel; needs node 0 with memory (any NUMA-enabled Linux).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NativeError } from '../../../src/native/errors.ts';
import {
  MPOL_BIND,
  MPOL_DEFAULT,
  MPOL_F_STATIC_NODES,
  MPOL_INTERLEAVE,
  MPOL_LOCAL,
  MPOL_PREFERRED,
  MPOL_PREFERRED_MANY,
  MPOL_WEIGHTED_INTERLEAVE,
  getMempolicy,
  memsAllowed,
  nextInterleaveNode,
  setMempolicy,
  type Mempolicy,
} from '../../../src/native/mempolicy.ts';

function withPolicy(policy: Mempolicy, check: () => void): void {
  setMempolicy(policy);
  try {
    check();
  } finally {
    setMempolicy({ mode: MPOL_DEFAULT, nodes: [] });
  }
}

test('get_mempolicy reads back what set_mempolicy set', () => {
  const cases: Array<[Mempolicy, Mempolicy]> = [
    [
      { mode: MPOL_BIND, nodes: [0] },
      { mode: MPOL_BIND, nodes: [0], modeFlags: 0 },
    ],
    [
      { mode: MPOL_INTERLEAVE, nodes: [0] },
      { mode: MPOL_INTERLEAVE, nodes: [0], modeFlags: 0 },
    ],
    [
      { mode: MPOL_PREFERRED, nodes: [0] },
      { mode: MPOL_PREFERRED, nodes: [0], modeFlags: 0 },
    ],
    [
      { mode: MPOL_LOCAL, nodes: [] },
      { mode: MPOL_LOCAL, nodes: [], modeFlags: 0 },
    ],
    [
      { mode: MPOL_BIND, nodes: [0], modeFlags: MPOL_F_STATIC_NODES },
      { mode: MPOL_BIND, nodes: [0], modeFlags: MPOL_F_STATIC_NODES },
    ],
  ];
  for (const [set, expected] of cases) withPolicy(set, () => assert.deepEqual(getMempolicy(), expected));
  assert.deepEqual(getMempolicy(), { mode: MPOL_DEFAULT, nodes: [], modeFlags: 0 });
});

test('preferred-many and weighted-interleave work on kernels that have them', () => {
  for (const mode of [MPOL_PREFERRED_MANY, MPOL_WEIGHTED_INTERLEAVE]) {
    try {
      withPolicy({ mode, nodes: [0] }, () => assert.equal(getMempolicy().mode, mode));
    } catch (err) {
      // Older kernels: EINVAL, with a hint naming the release that added the mode.
      assert.ok(err instanceof NativeError);
      assert.equal(err.code, 'EINVAL');
      assert.match(err.message, /needs Linux (5\.15|6\.9) or later/);
    }
  }
});

test('interleave reports its next node', () => {
  withPolicy({ mode: MPOL_INTERLEAVE, nodes: [0] }, () => assert.equal(nextInterleaveNode(), 0));
});

test('a node that does not exist is EINVAL naming it', () => {
  assert.throws(
    () => setMempolicy({ mode: MPOL_BIND, nodes: [5] }),
    (err: unknown) => {
      assert.ok(err instanceof NativeError);
      assert.equal(err.code, 'EINVAL');
      assert.match(err.message, /^set_mempolicy \(bind, nodes 5\): Invalid argument \(EINVAL\); a node may not exist/);
      return true;
    },
  );
  assert.equal(getMempolicy().mode, MPOL_DEFAULT);
});

test('an unknown mode is EINVAL', () => {
  assert.throws(() => setMempolicy({ mode: 99, nodes: [0] }), { code: 'EINVAL' });
});

test('mems allowed includes node 0', () => {
  assert.ok(memsAllowed().includes(0));
});
