// stopOnSignals, as migrate --paced and bench ab use it: the first SIGINT or SIGTERM aborts the
// step and is remembered; the handlers go when the step ends.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stopOnSignals } from '../../../src/cli/stop_signals.ts';

describe('stopOnSignals (migrate --paced, bench ab): SIGINT and SIGTERM stop the step', () => {
  it('aborts on the first signal, remembers which, and leaves no handler behind', () => {
    const counts = () => [process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')];
    const was = counts();
    const stop = stopOnSignals();
    assert.deepEqual(counts(), [was[0]! + 1, was[1]! + 1]);
    assert.equal(stop.abort.signal.aborted, false);
    assert.equal(stop.signal, undefined);
    process.emit('SIGTERM');
    process.emit('SIGINT');
    assert.equal(stop.abort.signal.aborted, true);
    assert.equal(stop.signal, 'SIGTERM');
    stop.off();
    assert.deepEqual(counts(), was);
  });
});
