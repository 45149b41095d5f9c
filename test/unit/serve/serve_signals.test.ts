// numakit serve and SIGTERM/SIGINT, in process with a stand-in for `process`'s signal events.
// The serve SIGTERM test (serve_process.test.ts) failed on loaded machines with exit code null:
// serve used to print its ready line and run a first doctor pass on its own thread before it
// listened for signals, so a SIGTERM sent on seeing the line killed it by the default action
// (b9affb0 moved doctor to a worker and the listeners to the start). These pin that order: the
// listeners exist before anything is printed, a signal during start-up ends serve with 0 once
// it is up, and no listener is left behind.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { EXAMPLES_DIR } from '../../../src/cli/examples_dir.js';
import type { ServeOptions } from '../../../src/serve/run.js';
import { runServe } from '../../../src/serve/run.js';
import { openRoot } from '../../../src/sysfs/root.js';

const OPTS: ServeOptions = {
  listen: '127.0.0.1:0',
  tokenFile: undefined,
  webConfigFile: undefined,
  insecurePublic: false,
  top: 0,
  doctorIntervalMs: 3_600_000,
  nodeExporterNames: true,
};
const root = openRoot(join(EXAMPLES_DIR, 'spark-2s'), 'example spark-2s');
const listening = (s: EventEmitter) => ({ SIGINT: s.listenerCount('SIGINT'), SIGTERM: s.listenerCount('SIGTERM') });

/** Whether something accepts connections on the port. */
const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const c = connect(port, '127.0.0.1', () => {
      c.destroy();
      resolve(true);
    });
    c.on('error', () => resolve(false));
  });

describe('serve and signals', () => {
  // A timeout: a signal that finds no listener is lost here, and serve would run on.
  it('listens for SIGINT and SIGTERM before it prints anything, and for as long as it runs', {
    timeout: 30_000,
  }, async () => {
    const signals = new EventEmitter();
    const seen: ReturnType<typeof listening>[] = [];
    let port = 0;
    const done = runServe(OPTS, {
      root,
      signals,
      err: () => {},
      out: () => void seen.push(listening(signals)),
      onListening: (s) => {
        port = Number(s.address.split(':').pop());
        setImmediate(() => signals.emit('SIGTERM'));
      },
    });
    assert.equal(await done, 0);
    assert.deepEqual(seen, [{ SIGINT: 1, SIGTERM: 1 }], 'the ready line came with both listeners in place');
    assert.deepEqual(listening(signals), { SIGINT: 0, SIGTERM: 0 }, 'none left behind');
    assert.equal(await accepts(port), false, 'the server is closed');
  });

  for (const signal of ['SIGTERM', 'SIGINT']) {
    it(`a ${signal} during start-up ends it with 0 as soon as it is up`, { timeout: 30_000 }, async () => {
      const signals = new EventEmitter();
      let port = 0;
      const done = runServe(OPTS, {
        root,
        signals,
        out: () => {},
        err: () => {},
        onListening: (s) => void (port = Number(s.address.split(':').pop())),
      });
      signals.emit(signal); // before it has read anything or listened
      assert.equal(await done, 0);
      assert.ok(port > 0, 'it came up first (and then closed)');
      assert.equal(await accepts(port), false);
      assert.deepEqual(listening(signals), { SIGINT: 0, SIGTERM: 0 });
    });
  }
});
