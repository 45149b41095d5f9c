// Property tests of src/native/mask.ts (kernel bitmasks) and the snapshot archive reader
// (issue 18): generated inputs (valid, boundary, hostile) may only give a value or the typed
// error (RangeError for masks; a one-line NumakitError naming the archive). Seeds as in
// property.test.ts (NUMAKIT_FC_SEED, NUMAKIT_FC_RUNS).
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { readSnapshotArchive } from '../../../src/sysfs/snapshot_archive.js';
import { NumakitError } from '../../../src/model/errors.js';
import { BITS_PER_LONG, fromMask, longsFor, MAX_MASK_BITS, maskBitsFor, toMask } from '../../../src/native/mask.js';
import { tarBytes } from '../../helpers/tar_bytes.js';
import { tarDamage, tarEntries } from './grammar.js';
import { RUNS, SEED } from './fc_settings.js';

const opts = { seed: SEED, numRuns: RUNS };
const nbits = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 4096 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      -1,
      -64,
      1.5,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      2 ** 31,
      2 ** 53,
      MAX_MASK_BITS,
      MAX_MASK_BITS + 1,
    ),
  },
);
const id = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 0, max: 4200 }) },
  { weight: 1, arbitrary: fc.constantFrom(-1, 0.5, Number.NaN, 2 ** 53, 2 ** 31, 64, 63, 4095, 4096) },
);

function valueOrRangeError<T>(f: () => T, check: (v: T) => void): void {
  let v: T;
  try {
    v = f();
  } catch (e) {
    assert.ok(e instanceof RangeError, `threw ${(e as Error)?.constructor?.name}: ${(e as Error)?.message}`);
    return;
  }
  check(v);
}

describe(`src/native/mask.ts: a mask or a RangeError (${RUNS} inputs each, seed ${SEED})`, () => {
  it('longsFor', (t) => {
    t.diagnostic(`seed ${SEED}, ${RUNS} runs`);
    fc.assert(
      fc.property(nbits, (n) =>
        valueOrRangeError(
          () => longsFor(n),
          (v) => assert.ok(Number.isInteger(v) && v >= 1 && v * BITS_PER_LONG >= n),
        ),
      ),
      opts,
    );
  });
  it('toMask then fromMask gives the ids back', (t) => {
    t.diagnostic(`seed ${SEED}, ${RUNS} runs`);
    fc.assert(
      fc.property(fc.array(id, { maxLength: 40 }), nbits, (ids, n) =>
        valueOrRangeError(
          () => toMask(ids, n),
          (m) => {
            assert.deepEqual(
              fromMask(m, n),
              [...new Set(ids)].sort((a, b) => a - b),
            );
          },
        ),
      ),
      opts,
    );
  });
  it('fromMask of any words', (t) => {
    t.diagnostic(`seed ${SEED}, ${RUNS} runs`);
    fc.assert(
      fc.property(
        fc.array(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), { maxLength: 8 }),
        fc.option(fc.integer({ min: -5, max: 600 })),
        (words, n) => {
          const m = BigUint64Array.from(words);
          const got = n === null ? fromMask(m) : fromMask(m, n);
          const limit = Math.min(n ?? Infinity, m.length * BITS_PER_LONG);
          got.forEach((x, i) => assert.ok(Number.isInteger(x) && x >= 0 && x < limit && (i === 0 || x > got[i - 1]!)));
        },
      ),
      opts,
    );
  });
  it('maskBitsFor', (t) => {
    t.diagnostic(`seed ${SEED}, ${RUNS} runs`);
    fc.assert(
      fc.property(fc.array(id, { maxLength: 20 }), fc.integer({ min: 0, max: 8192 }), (ids, min) => {
        const v = maskBitsFor(ids, min);
        assert.ok(v >= min && v <= Math.max(min, MAX_MASK_BITS), `maskBitsFor -> ${v}`);
      }),
      opts,
    );
  });
});

describe(`snapshot archive reader: a tree or one line naming the archive (${RUNS} archives, seed ${SEED})`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'numakit-archive-prop-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'a.tar.gz');

  it('readSnapshotArchive', async (t) => {
    t.diagnostic(`seed ${SEED}, ${RUNS} runs`);
    await fc.assert(
      fc.asyncProperty(tarEntries, tarDamage, fc.boolean(), async (entries, damage, gzip) => {
        let bytes = tarBytes(entries, gzip);
        if (damage.kind === 'truncate') bytes = bytes.subarray(0, damage.at % (bytes.length + 1));
        if (damage.kind === 'flip' && bytes.length > 0) {
          bytes = Buffer.from(bytes);
          const at = damage.at % bytes.length;
          bytes[at] = bytes[at]! ^ 0xff;
        }
        writeFileSync(file, bytes);
        try {
          const tree = await readSnapshotArchive(file);
          for (const e of entries) {
            const r = tree.lookup(e.path.replace(/^\/+/, ''));
            if (r.ok && r.entry.kind === 'file') assert.equal(typeof tree.readText(r.path), 'string');
            tree.list(e.path.replace(/^\/+/, ''));
          }
        } catch (e) {
          assert.ok(e instanceof NumakitError, `threw ${(e as Error)?.constructor?.name}: ${(e as Error)?.message}`);
          assert.ok(e.message.startsWith(`${file}: `) && !e.message.includes('\n'), e.message);
        }
        assert.deepEqual(readdirSync(dir), ['a.tar.gz'], 'nothing is written beside the archive');
      }),
      opts,
    );
  });
});
