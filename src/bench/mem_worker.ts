// A kernel worker of `numakit bench mem`: one thread, pinned by the main thread's 'pin' message
// (sched_setaffinity(0) in a worker_thread pins only that thread), running the wasm kernels
// on the memory every worker shares. Repetitions are released by the main thread through the
// control buffer so that all workers start each one together; each worker stamps its own start
// and end, and a rep lasts from the first start to the last end (STREAM's parallel region).
import { parentPort, workerData } from 'node:worker_threads';
import { getcpu, setAffinity } from '../native/affinity.js';
import { CTL, type FromWorker, type KernelExports, type Slice, type ToWorker, type WorkerInit } from './protocol.js';

const init = workerData as WorkerInit;
const ctl = new Int32Array(init.control);
const times = new Float64Array(init.times);
const module = new WebAssembly.Module(Buffer.from(init.wasm, 'base64'));
const ex = new WebAssembly.Instance(module, { env: { memory: init.memory } }).exports as unknown as KernelExports;
const now = (): number => Number(process.hrtime.bigint()) / 1e9;

const post = (m: FromWorker) => parentPort!.postMessage(m);

function runKernel(kernel: string, s: Slice): void {
  // The kernels return their sum so that wasm keeps every load; JS need not keep it (a call into
  // wasm is never elided).
  if (kernel === 'read') ex.read(s.a, s.n);
  else if (kernel === 'write')
    ex.fill(s.c, s.n, 0x3f); // 0x3f3f... is a normal double
  else if (kernel === 'copy') ex.copy(s.c, s.a, s.n);
  else ex.triad(s.a, s.b, s.c, s.n, 3.0);
}

/** Runs one rep each time the main thread bumps seq, until it sets end. */
function reps(kernel: string, slice: Slice): void {
  let seq = Atomics.load(ctl, CTL.seq);
  post({ type: 'ready' });
  for (;;) {
    while (Atomics.load(ctl, CTL.seq) === seq) Atomics.wait(ctl, CTL.seq, seq);
    seq = Atomics.load(ctl, CTL.seq);
    if (Atomics.load(ctl, CTL.end) !== 0) {
      Atomics.add(ctl, CTL.done, 1); // acknowledged: the main thread may reuse the control slots
      Atomics.notify(ctl, CTL.done);
      return;
    }
    const t0 = now();
    runKernel(kernel, slice);
    times[2 * init.index] = t0;
    times[2 * init.index + 1] = now();
    Atomics.add(ctl, CTL.done, 1);
    Atomics.notify(ctl, CTL.done);
  }
}

/** One untimed lap of the cycle, then laps of the cycle (at most 2^20 loads each) for `seconds`. */
function chase(start: number, lines: number, seconds: number): void {
  const lap = Math.max(16, Math.min(lines, 1 << 20) & ~15);
  let p = ex.chase(start, Math.max(16, lines & ~15));
  const ns: number[] = [];
  const until = now() + seconds;
  do {
    const t0 = now();
    p = ex.chase(p, lap);
    ns.push(((now() - t0) * 1e9) / lap);
  } while (now() < until || ns.length < 3);
  post({ type: 'chased', nsPerLoad: ns, loads: ns.length * lap });
}

/** Reads its slice over and over until the main thread sets stop (loaded latency's traffic). */
function stream(slice: Slice): void {
  post({ type: 'ready' });
  const t0 = now();
  let bytes = 0;
  while (Atomics.load(ctl, CTL.stop) === 0) {
    ex.read(slice.a, slice.n);
    bytes += slice.n;
  }
  post({ type: 'streamed', bytes, seconds: now() - t0 });
}

parentPort!.on('message', (m: ToWorker) => {
  try {
    if (m.type === 'pin') {
      setAffinity(0, m.cpus);
      post({ type: 'pinned', ...getcpu() });
    } else if (m.type === 'reps') reps(m.kernel, m.slice);
    else if (m.type === 'chase') chase(m.start, m.lines, m.seconds);
    else stream(m.slice);
  } catch (e) {
    post({ type: 'error', message: (e as Error).message });
  }
});
