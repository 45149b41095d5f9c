import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildQemuArgs, KERNEL_CMDLINE, nearestInitiator, type QemuInputs } from './qemu_args.js';
import { resolveTopology } from './topology.js';
import { FOUR_NODE_ASYM, THREE_NODE_CXL, TWO_NODE } from './topologies.js';

const inputs: QemuInputs = { kernel: '/k', initrd: '/i', shareDir: '/s', consoleFile: '/c', accel: 'tcg' };

function values(args: string[], flag: string): string[] {
  return args.flatMap((a, i) => (a === flag ? [args[i + 1] ?? ''] : []));
}

describe('buildQemuArgs', () => {
  it('one socket per node, nodes defined before their CPUs, TCG, q35, no reboot', () => {
    const args = buildQemuArgs(resolveTopology(TWO_NODE), inputs);
    assert.deepEqual(values(args, '-smp'), ['4,sockets=2,cores=2,threads=1,maxcpus=4']);
    assert.deepEqual(values(args, '-numa'), [
      'node,nodeid=0,memdev=m0',
      'node,nodeid=1,memdev=m1',
      'cpu,node-id=0,socket-id=0',
      'cpu,node-id=1,socket-id=1',
    ]);
    assert.deepEqual(values(args, '-accel'), ['tcg,thread=multi']);
    assert.deepEqual(values(args, '-machine'), ['q35']);
    assert.deepEqual(values(args, '-m'), ['1024M']);
    assert.ok(args.includes('-no-reboot'));
  });

  it('passes every off-diagonal distance', () => {
    const dist = values(buildQemuArgs(resolveTopology(FOUR_NODE_ASYM), inputs), '-numa').filter((v) =>
      v.startsWith('dist,'),
    );
    assert.equal(dist.length, 12);
    assert.ok(dist.includes('dist,src=0,dst=3,val=28'));
  });

  it('uneven CPU counts get one socket per CPU', () => {
    const args = buildQemuArgs(resolveTopology({ name: 'u', nodes: 2, cpus: [2, 1], memMiB: 128 }), inputs);
    assert.deepEqual(values(args, '-smp'), ['3,sockets=3,cores=1,threads=1,maxcpus=3']);
    assert.deepEqual(
      values(args, '-numa').filter((v) => v.startsWith('cpu,')),
      ['cpu,node-id=0,socket-id=0', 'cpu,node-id=0,socket-id=1', 'cpu,node-id=1,socket-id=2'],
    );
  });

  it('HMAT: initiators for memory-only nodes and latency/bandwidth per pair', () => {
    const t = resolveTopology(THREE_NODE_CXL);
    const args = buildQemuArgs(t, inputs);
    assert.deepEqual(values(args, '-machine'), ['q35,hmat=on']);
    assert.equal(nearestInitiator(t, 2), 0);
    assert.ok(values(args, '-numa').includes('node,nodeid=2,memdev=m2,initiator=0'));
    assert.ok(
      values(args, '-numa').includes(
        'hmat-lb,initiator=1,target=2,hierarchy=memory,data-type=access-latency,latency=32',
      ),
    );
    assert.equal(values(args, '-numa').filter((v) => v.startsWith('hmat-lb,')).length, 2 * 3 * 2);
  });

  it('KVM uses the host CPU', () => {
    const args = buildQemuArgs(resolveTopology(TWO_NODE), { ...inputs, accel: 'kvm' });
    assert.deepEqual(values(args, '-cpu'), ['host']);
  });

  it("the guest's clocksource watchdog stays on (no tsc=reliable); no boot-time timer check for a starved vCPU to fail", () => {
    for (const accel of ['tcg', 'kvm'] as const) {
      const append = values(buildQemuArgs(resolveTopology(TWO_NODE), { ...inputs, accel }), '-append');
      assert.deepEqual(append, [KERNEL_CMDLINE]);
      assert.ok(!append[0]!.split(' ').includes('tsc=reliable'), append[0]);
      assert.ok(append[0]!.split(' ').includes('panic=-1'), append[0]);
      assert.ok(append[0]!.split(' ').includes('no_timer_check'), append[0]);
    }
  });
});
