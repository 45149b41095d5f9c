// The main thread's side of the kernel workers: start them on one shared memory, pin them,
// and run repetitions, chases and background streams. Waiting uses Atomics.waitAsync, so the
// event loop (signals, a worker's error) keeps running; the times themselves are stamped by
// the workers, so how fast the main thread wakes never enters a measurement.
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { NumakitError } from '../model/errors.js';
import { seaWorker } from '../runtime/sea_worker.js';
import { CTL, type FromWorker, type Kernel, type Slice, type ToWorker, type WorkerInit } from './protocol.js';
import { KERNELS_WASM_BASE64 } from './wasm/kernels_wasm.js';

// Atomics.waitAsync is in Node 20 (V8 8.7+) but in TypeScript's lib only from ES2024.
type WaitAsync = (
  a: Int32Array,
  i: number,
  v: number,
  ms: number,
) => { async: false; value: string } | { async: true; value: Promise<string> };
const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;

/** The worker's entry: the built .js, a tsx bootstrap when running from the .ts sources, or the executable's own. */
function workerUrl(): URL {
  const dev = import.meta.url.endsWith('.ts');
  return seaWorker('mem_worker') ?? new URL(dev ? './mem_worker_dev.mjs' : './mem_worker.js', import.meta.url);
}

export interface RepPlan {
  /** Timed repetitions at least (after one untimed pass). */
  readonly repeats: number;
  /** Keep repeating until this many seconds of timed reps have passed. */
  readonly seconds: number;
  readonly maxRepeats: number;
}

export class KernelPool {
  private readonly ctl: Int32Array;
  private readonly times: Float64Array;
  private failure: Error | undefined;

  private constructor(
    private readonly workers: Worker[],
    control: SharedArrayBuffer,
    times: SharedArrayBuffer,
  ) {
    this.ctl = new Int32Array(control);
    this.times = new Float64Array(times);
    for (const w of workers) {
      w.on('error', (e) => (this.failure ??= e));
      w.on('message', (m: FromWorker) => {
        if (m.type === 'error') this.failure ??= new NumakitError(`bench worker: ${m.message}`);
      });
    }
  }

  static async start(count: number, memory: WebAssembly.Memory): Promise<KernelPool> {
    const control = new SharedArrayBuffer(CTL.slots * 4);
    const times = new SharedArrayBuffer(16 * count);
    const workers = Array.from({ length: count }, (_, index) => {
      const data: WorkerInit = { index, memory, control, times, wasm: KERNELS_WASM_BASE64 };
      return new Worker(workerUrl(), { workerData: data });
    });
    await Promise.all(workers.map((w) => once(w, 'online')));
    return new KernelPool(workers, control, times);
  }

  get size(): number {
    return this.workers.length;
  }

  private async ask(index: number, msg: ToWorker, reply: FromWorker['type']): Promise<FromWorker> {
    const w = this.workers[index]!;
    const answer = new Promise<FromWorker>((resolve, reject) => {
      const onMsg = (m: FromWorker) => {
        if (m.type !== reply && m.type !== 'error') return;
        w.off('message', onMsg);
        w.off('error', reject);
        if (m.type === 'error') reject(new NumakitError(`bench worker ${index}: ${m.message}`));
        else resolve(m);
      };
      w.on('message', onMsg);
      w.once('error', reject);
    });
    w.postMessage(msg);
    return answer;
  }

  /** Pins worker i to cpus[i] (each a CPU list); returns the CPU each then ran on. */
  async pin(cpus: readonly (readonly number[])[]): Promise<number[]> {
    const got = await Promise.all(cpus.map((c, i) => this.ask(i, { type: 'pin', cpus: c }, 'pinned')));
    return got.map((m) => (m.type === 'pinned' ? m.cpu : -1));
  }

  private async waitDone(target: number): Promise<void> {
    for (;;) {
      const d = Atomics.load(this.ctl, CTL.done);
      if (d >= target) return;
      if (this.failure !== undefined) throw this.failure;
      const r = waitAsync(this.ctl, CTL.done, d, 1000);
      if (r.async) await r.value;
    }
  }

  private release(): void {
    Atomics.add(this.ctl, CTL.seq, 1);
    Atomics.notify(this.ctl, CTL.seq);
  }

  /**
   * Runs `kernel` on workers 0..slices.length-1, one slice each: one untimed pass, then timed
   * reps per `plan`. Returns the seconds of each timed rep (first start to last end).
   */
  async reps(kernel: Kernel, slices: readonly Slice[], plan: RepPlan): Promise<number[]> {
    const n = slices.length;
    Atomics.store(this.ctl, CTL.end, 0);
    await Promise.all(slices.map((slice, i) => this.ask(i, { type: 'reps', kernel, slice }, 'ready')));
    const out: number[] = [];
    let spent = 0;
    for (let rep = 0; rep <= plan.repeats || (spent < plan.seconds && rep <= plan.maxRepeats); rep++) {
      Atomics.store(this.ctl, CTL.done, 0);
      this.release();
      await this.waitDone(n);
      let t0 = Infinity;
      let t1 = -Infinity;
      for (let i = 0; i < n; i++) {
        t0 = Math.min(t0, this.times[2 * i]!);
        t1 = Math.max(t1, this.times[2 * i + 1]!);
      }
      if (rep > 0) {
        out.push(t1 - t0);
        spent += t1 - t0;
      }
    }
    // Every worker acknowledges the end before the slots are reused for the next job.
    Atomics.store(this.ctl, CTL.done, 0);
    Atomics.store(this.ctl, CTL.end, 1);
    this.release();
    await this.waitDone(n);
    return out;
  }

  /** Worker `index` chases the cycle from `start` for `seconds`; ns per load of each lap. */
  async chase(index: number, start: number, lines: number, seconds: number): Promise<number[]> {
    const m = await this.ask(index, { type: 'chase', start, lines, seconds }, 'chased');
    return m.type === 'chased' ? m.nsPerLoad : [];
  }

  /**
   * Loaded latency: workers in `loaders` read their slices over and over while worker
   * `chaser` chases. Returns the chase's ns per load and the loaders' GB/s.
   */
  async loaded(
    chaser: number,
    cycle: { start: number; lines: number; seconds: number },
    loaders: ReadonlyMap<number, Slice>,
  ): Promise<{ nsPerLoad: number[]; gbps: number }> {
    Atomics.store(this.ctl, CTL.stop, 0);
    const streams = [...loaders].map(([i, slice]) => {
      const ready = this.nextMessage(i, 'ready');
      const done = this.nextMessage(i, 'streamed');
      this.workers[i]!.postMessage({ type: 'stream', slice } satisfies ToWorker);
      return { ready, done };
    });
    let nsPerLoad: number[];
    try {
      await Promise.all(streams.map((s) => s.ready));
      nsPerLoad = await this.chase(chaser, cycle.start, cycle.lines, cycle.seconds);
    } finally {
      Atomics.store(this.ctl, CTL.stop, 1);
    }
    let bytes = 0;
    let seconds = 0;
    for (const m of await Promise.all(streams.map((s) => s.done))) {
      if (m.type === 'error') throw new NumakitError(`bench worker: ${m.message}`);
      if (m.type !== 'streamed') continue;
      bytes += m.bytes;
      seconds = Math.max(seconds, m.seconds);
    }
    return { nsPerLoad, gbps: seconds > 0 ? bytes / seconds / 1e9 : 0 };
  }

  private nextMessage(index: number, type: FromWorker['type']): Promise<FromWorker> {
    return new Promise((resolve) => {
      const w = this.workers[index]!;
      const on = (m: FromWorker) => {
        if (m.type === type || m.type === 'error') {
          w.off('message', on);
          resolve(m);
        }
      };
      w.on('message', on);
    });
  }

  async close(): Promise<void> {
    Atomics.store(this.ctl, CTL.end, 1);
    this.release();
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
