// Reads fleet inputs on `jobs` worker threads (one per core by default): reading an archive
// and auditing it is CPU work, ~5-20 ms a host. Each worker takes the next file when it posts
// a result, so a slow archive never holds up the rest. With jobs 1, or when running from the
// TypeScript sources (tests), everything runs in this thread.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { seaWorker } from '../runtime/sea_worker.js';
import { readHostPart, type PartResult } from './host.js';

export function defaultJobs(files: number): number {
  return Math.max(1, Math.min(availableParallelism(), Math.ceil(files / 32)));
}

async function inThread(files: readonly string[], profile: string): Promise<PartResult[]> {
  const out: PartResult[] = [];
  for (const f of files) out.push(await readHostPart(f, profile));
  return out;
}

export async function readHostParts(files: readonly string[], profile: string, jobs: number): Promise<PartResult[]> {
  if (jobs <= 1 || files.length < 2 || import.meta.url.endsWith('.ts')) return inThread(files, profile);
  const workerUrl = seaWorker('fleet_worker') ?? new URL('./worker.js', import.meta.url);
  const results: PartResult[] = new Array(files.length);
  let next = 0;
  const runWorker = () =>
    new Promise<void>((resolve, reject) => {
      const w = new Worker(workerUrl);
      let current = -1;
      const feed = () => {
        if (next >= files.length) return void w.terminate().then(() => resolve());
        current = next++;
        w.postMessage({ file: files[current], profile });
      };
      w.on('message', (r: PartResult) => {
        results[current] = r;
        feed();
      });
      w.on('error', reject);
      feed();
    });
  await Promise.all(Array.from({ length: Math.min(jobs, files.length) }, runWorker));
  return results;
}
