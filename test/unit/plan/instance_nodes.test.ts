// The nodes of a plan with one instance per node (redis, jvm, elasticsearch): the first
// --instances usable nodes, all by default; refused with no usable node or too few of them.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { instanceNodes } from '../../../src/policy/plan/choose_node.js';
import type { MachineShare, NodeShare } from '../../../src/policy/plan/types.js';

const machine = (nodes: number[]) =>
  ({ usable: nodes.map((node) => ({ node }) as NodeShare) }) as unknown as MachineShare;

it('instanceNodes: all usable nodes by default, the first N with --instances N', () => {
  assert.deepEqual(
    instanceNodes(machine([0, 1, 2]), { workload: 'redis', instances: undefined }).map((s) => s.node),
    [0, 1, 2],
  );
  assert.deepEqual(
    instanceNodes(machine([0, 1, 2]), { workload: 'redis', instances: 2 }).map((s) => s.node),
    [0, 1],
  );
});

it('instanceNodes: refused with no usable node, or more instances than nodes (with the hint)', () => {
  assert.throws(
    () => instanceNodes(machine([]), { workload: 'elasticsearch', instances: undefined }),
    /^UsageError: elasticsearch: no NUMA node has both CPUs and memory; nothing to plan$/,
  );
  assert.throws(
    () => instanceNodes(machine([0, 1]), { workload: 'redis', instances: 3, hint: '; use --per-core' }),
    /^UsageError: --instances 3: more instances than NUMA nodes with CPUs and memory \(2\); use --per-core$/,
  );
});
