import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderShow, type ShowState } from '../../../src/cli/commands/run.ts';

const base: ShowState = {
  mode: 0,
  policyNodes: [],
  interleaveNext: 0,
  affinity: [0, 1, 2, 3],
  runNodes: [0, 1],
  memsAllowed: [0, 1],
};

// Checked against numactl 2.0.16's --show for default, bind, interleave, preferred, preferred-many.
test("renderShow prints numactl --show's lines, trailing spaces included", () => {
  const cases: Array<[Partial<ShowState>, string]> = [
    [
      {},
      'policy: default\npreferred node: current\nphyscpubind: 0 1 2 3 \ncpubind: 0 1 \nnodebind: 0 1 \nmembind: 0 1 \npreferred: \n',
    ],
    [
      { mode: 2, policyNodes: [1], affinity: [2, 3], runNodes: [1] },
      'policy: bind\npreferred node: 1\nphyscpubind: 2 3 \ncpubind: 1 \nnodebind: 1 \nmembind: 1 \npreferred: 1 \n',
    ],
    [
      { mode: 3, policyNodes: [0, 1], interleaveNext: 1 },
      'policy: interleave\npreferred node: 1 (interleave next)\ninterleavemask: 0 1 \ninterleavenode: 1\nphyscpubind: 0 1 2 3 \ncpubind: 0 1 \nnodebind: 0 1 \nmembind: 0 1 \npreferred: 0 1 \n',
    ],
    [
      { mode: 1, policyNodes: [1] },
      'policy: preferred\npreferred node: 1\nphyscpubind: 0 1 2 3 \ncpubind: 0 1 \nnodebind: 0 1 \nmembind: 0 1 \npreferred: 1 \n',
    ],
    [
      { mode: 5, policyNodes: [0, 1] },
      'policy: preferred-many\npreferred node: 0 (preferred-many)\nphyscpubind: 0 1 2 3 \ncpubind: 0 1 \nnodebind: 0 1 \nmembind: 0 1 \npreferred: 0 1 \n',
    ],
    [
      // run -m 1 -b: the balancing flag shows (numactl 2.0.16: "policy: [8194]")
      { mode: 2, balancing: true, policyNodes: [1], affinity: [2, 3], runNodes: [1] },
      'policy: bind balancing\npreferred node: 1\nphyscpubind: 2 3 \ncpubind: 1 \nnodebind: 1 \nmembind: 1 \npreferred: 1 \n',
    ],
    [
      { mode: 4 },
      'policy: local\npreferred node: current\nphyscpubind: 0 1 2 3 \ncpubind: 0 1 \nnodebind: 0 1 \nmembind: 0 1 \npreferred: \n',
    ],
  ];
  for (const [state, expected] of cases)
    assert.equal(renderShow({ ...base, ...state }), expected, JSON.stringify(state));
});

// numactl master (after its weighted interleave --show change): interleavemask, then the weights
// of those nodes as "interleaveweights: W W ", then interleavenode.
test('renderShow under weighted interleave prints the interleaveweights line between mask and node', () => {
  const weights = new Map([
    [0, 3],
    [1, 3],
    [2, 1],
  ]);
  assert.equal(
    renderShow({ ...base, mode: 6, policyNodes: [0, 2], interleaveNext: 2, memsAllowed: [0, 1, 2], weights }),
    'policy: weighted-interleave\npreferred node: 2 (interleave next)\ninterleavemask: 0 2 \ninterleaveweights: 3 1 \ninterleavenode: 2\nphyscpubind: 0 1 2 3 \ncpubind: 0 1 \nnodebind: 0 1 \nmembind: 0 1 2 \npreferred: 0 2 \n',
  );
  // Plain interleave has no weights line.
  assert.doesNotMatch(renderShow({ ...base, mode: 3, policyNodes: [0, 1], weights }), /interleaveweights/);
});
