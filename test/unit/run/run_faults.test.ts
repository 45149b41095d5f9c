// `numakit run` with each syscall failing with each errno: one line on stderr naming the call,
// the errno and what it acted on, exit status 1, and COMMAND never runs (it would run with half
// of the binding asked for). The process's own policy dies with it: nothing outlives the refusal.
// In-process through main(), with the calls that would rebind the test runner recorded, not made.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { FaultableCall } from '../../../src/native/libc.js';
import { runMain } from '../../helpers/cli.js';
import { FAULTS, FAULT_MESSAGE, injectNativeFaults } from '../../helpers/native_faults.js';

let restore = () => {};
afterEach(() => restore());

async function runWith(call: FaultableCall, errno: string, args: string[]) {
  const f = injectNativeFaults({ fail: [{ call, errno }], dry: true });
  restore = f.restore;
  const r = await runMain(['run', ...args]);
  f.restore();
  return { ...r, calls: f.calls };
}

describe('run: each binding call failing with each errno', () => {
  const cases: Array<[FaultableCall, RegExp]> = [
    ['set_mempolicy', /^numakit: run: set_mempolicy \(bind, nodes 0\): /],
    ['sched_setaffinity', /^numakit: run: sched_setaffinity \(pid 0, cpus 0\): /],
  ];
  for (const [call, where] of cases) {
    it(`${call}: ${FAULTS.join(', ')}: one line, exit 1, the command never runs`, async () => {
      for (const errno of FAULTS) {
        const r = await runWith(call, errno, ['--membind=0', '--physcpubind=0', '--', 'sh', '-c', 'echo RAN']);
        assert.equal(r.code, 1, `${call} ${errno}: ${r.err}`);
        assert.match(r.err, where);
        assert.ok(r.err.includes(`${FAULT_MESSAGE[errno]} (${errno})`), r.err);
        assert.equal(r.err.trim().split('\n').length, 1, r.err);
        assert.equal(r.out, '');
        assert.ok(
          !r.calls.some((c) => c.startsWith('execvp')),
          `${call} ${errno}: exec was reached: ${r.calls.join(', ')}`,
        );
      }
    });
  }

  it('--show: get_mempolicy or sched_getaffinity failing is one line and exit 1, nothing half printed', async () => {
    for (const call of ['get_mempolicy', 'sched_getaffinity'] as const) {
      for (const errno of FAULTS) {
        const r = await runWith(call, errno, ['--show']);
        assert.equal(r.code, 1, `${call} ${errno}`);
        assert.match(r.err, new RegExp(`^numakit: run: ${call}.*\\(${errno}\\)`));
        assert.equal(r.out, '');
      }
    }
  });

  it('with no fault the same command reaches exec with the policy and affinity set, in that order', async () => {
    const f = injectNativeFaults({ dry: true });
    restore = f.restore;
    const r = await runMain(['run', '--membind=0', '--physcpubind=0', '--', 'true']);
    assert.deepEqual(
      f.calls.filter((c) => c !== 'sched_getaffinity' && c !== 'get_mempolicy'),
      ['set_mempolicy', 'sched_setaffinity', 'execvp true'],
    );
    assert.equal(r.code, 126, 'the recorded exec fails with ENOEXEC: 126, found but not executable');
  });
});
