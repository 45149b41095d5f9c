// Child of proc_events.test.ts: the process events with a filter that drops every datagram, so
// that the poll on the pool is sure to be blocked; close() must end it, and the process exit at
// once. Prints how long after close() it exited.
import { type Insn, openProcessEvents } from '../../../src/agent/proc_events.js';

const DROP_ALL: readonly Insn[] = [[0x06, 0, 0, 0]];
const ev = openProcessEvents(100, DROP_ALL);
setTimeout(() => {
  const at = performance.now();
  process.on('exit', () => process.stdout.write(`exit ${Math.round(performance.now() - at)} ms after close\n`));
  ev.close();
}, 300);
