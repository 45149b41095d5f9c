// A worker thread of numakit fleet report: reads the inputs it is sent, one at a time, and
// posts each result back. Started by pool.ts from the built dist/ only.
import { parentPort } from 'node:worker_threads';
import { readHostPart } from './host.js';

parentPort?.on('message', (m: { file: string; profile: string } | null) => {
  if (m === null) return void parentPort?.close();
  void readHostPart(m.file, m.profile).then((r) => parentPort?.postMessage(r));
});
