// The wasm kernels on a small shared memory in this thread: what each computes, and that the
// committed bytes are the .wat's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LINE, sattolo, writeCycle } from '../../../src/bench/chase.ts';
import type { KernelExports } from '../../../src/bench/protocol.ts';
import { KERNELS_WASM_BASE64 } from '../../../src/bench/wasm/kernels_wasm.ts';
// @ts-expect-error: a plain .mjs script without types
import { expected } from '../../../scripts/build-wasm.mjs';
import { readFileSync } from 'node:fs';

function instance(pages = 16): { ex: KernelExports; memory: WebAssembly.Memory } {
  const memory = new WebAssembly.Memory({ initial: pages, maximum: pages, shared: true });
  const mod = new WebAssembly.Module(Buffer.from(KERNELS_WASM_BASE64, 'base64'));
  return { memory, ex: new WebAssembly.Instance(mod, { env: { memory } }).exports as unknown as KernelExports };
}

test('each committed *_wasm.ts (bench kernels, agent pages) holds exactly what its .wat compiles to', async () => {
  const modules: { path: string; text: string }[] = await expected();
  assert.equal(modules.length, 2);
  for (const { path, text } of modules)
    assert.equal(readFileSync(path, 'utf8'), text, `${path} is stale: run node scripts/build-wasm.mjs`);
});

test('read sums 64-bit words; fill, copy and triad write what they should', () => {
  const { ex, memory } = instance();
  const words = new BigUint64Array(memory.buffer);
  for (let i = 0; i < 64; i++) words[i] = BigInt(i + 1);
  assert.equal(ex.read(0, 512), 2080n); // 1 + ... + 64
  ex.fill(1024, 256, 0x3f);
  assert.ok(new Uint8Array(memory.buffer, 1024, 256).every((b) => b === 0x3f));
  assert.equal(new Uint8Array(memory.buffer)[1024 + 256], 0);
  ex.copy(4096, 0, 512);
  assert.deepEqual(new BigUint64Array(memory.buffer, 4096, 64), new BigUint64Array(memory.buffer, 0, 64));
  const f = new Float64Array(memory.buffer);
  const [A, B, C, n] = [8192, 16384, 24576, 64];
  for (let i = 0; i < n; i++) {
    f[B / 8 + i] = i;
    f[C / 8 + i] = 2 * i;
  }
  ex.triad(A, B, C, n * 8, 3.0);
  for (let i = 0; i < n; i++) assert.equal(f[A / 8 + i], i + 3 * 2 * i);
});

test('sattolo gives one cycle through every line', () => {
  const next = sattolo(1000, 42);
  const seen = new Set<number>();
  let p = 0;
  for (let i = 0; i < 1000; i++) {
    seen.add(p);
    p = next[p]!;
  }
  assert.equal(p, 0);
  assert.equal(seen.size, 1000);
});

test('the chase follows the cycle written over 64-byte lines', () => {
  const { ex, memory } = instance();
  const lines = 4096;
  writeCycle(memory.buffer, 0, lines, 11);
  const links = new Uint32Array(memory.buffer);
  const next = sattolo(lines, 11);
  let p = 0;
  for (let i = 0; i < 32; i++) p = next[p / LINE]! * LINE;
  assert.equal(ex.chase(0, 32), p);
  assert.equal(ex.chase(0, lines), 0, 'a whole lap comes back to the start');
  assert.equal(links[1], 0, 'only the first word of a line is a link');
});
