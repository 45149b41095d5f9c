// Worker for affinity.test.ts: pins its own thread to workerData.cpu and reports its affinity.
// Plain JS that registers tsx itself: on Node 20 a worker does not inherit the --import hooks.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { getAffinity, setAffinity } = await import('../../../src/native/affinity.ts');
setAffinity(0, [workerData.cpu]);
parentPort.postMessage(getAffinity());
