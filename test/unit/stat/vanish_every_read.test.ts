// A process that ends in the middle of being sampled, at every read the samplers make of it: its
// /proc/PID directory is gone before read K (the process exited between two reads), or read K
// fails with ESRCH after its open (it exited while the file was read). Through the public
// commands that sample processes (stat --procs, serve's scrape, the agent's advice, snapshot
// --processes), on a copy of the four-node fixture: each read is found by counting the reads of
// a run without faults, so a sampler that reads more or other files is covered as it is.
// Every command goes on: exit 0, no stack trace, the other processes still reported.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runMain } from '../../helpers/cli.js';
import { copyFixture } from '../serve/helpers.js';
import { Scraper } from '../../../src/serve/scrape.js';
import { renderExposition } from '../../../src/serve/exposition.js';
import { scrapeFamilies } from '../../../src/serve/metrics.js';
import { openRoot } from '../../../src/sysfs/root.js';

const PID = '1302'; // java: several threads, memory on every node
const real = { openSync: fs.openSync, readSync: fs.readSync, readdirSync: fs.readdirSync };

type Mode = 'gone-before' | 'esrch-during';

/**
 * Runs `body` with the reads of DIR/proc/PID counted (opens and directory listings); at read
 * number `k` the process ends as `mode` says. Resolves to the number of such reads.
 */
async function withVanish(dir: string, k: number, mode: Mode, body: () => Promise<void>): Promise<number> {
  const pidDir = join(dir, 'proc', PID);
  const dead = new Set<number>();
  let n = 0;
  const mine = (p: unknown) => typeof p === 'string' && (p === pidDir || p.startsWith(`${pidDir}/`));
  const hit = () => ++n === k;
  const f = fs as unknown as Record<string, unknown>;
  f['openSync'] = (p: fs.PathLike, ...rest: unknown[]) => {
    if (mine(p) && hit()) {
      if (mode === 'gone-before') fs.rmSync(pidDir, { recursive: true, force: true });
      else {
        const fd = (real.openSync as (...a: unknown[]) => number)(p, ...rest);
        dead.add(fd);
        return fd;
      }
    }
    return (real.openSync as (...a: unknown[]) => number)(p, ...rest);
  };
  f['readSync'] = (fd: number, ...rest: unknown[]) => {
    if (dead.has(fd)) {
      dead.delete(fd); // fd numbers are reused once closed
      fs.rmSync(pidDir, { recursive: true, force: true });
      throw Object.assign(new Error(`ESRCH: no such process, read`), { code: 'ESRCH', errno: -3, syscall: 'read' });
    }
    return (real.readSync as (...a: unknown[]) => number)(fd, ...rest);
  };
  f['readdirSync'] = (p: fs.PathLike, ...rest: unknown[]) => {
    if (mine(p) && hit() && mode === 'gone-before') fs.rmSync(pidDir, { recursive: true, force: true });
    return (real.readdirSync as (...a: unknown[]) => unknown)(p, ...rest);
  };
  syncBuiltinESMExports();
  try {
    await body();
  } finally {
    Object.assign(f, real);
    syncBuiltinESMExports();
  }
  return n;
}

interface Case {
  readonly name: string;
  /** Runs the command on DIR; returns what to check. */
  run(dir: string): Promise<{ code: number; out: string; err: string }>;
  /** Another process the output must still show. */
  readonly still: RegExp;
}

const cli = (args: string[]) => (dir: string) => runMain([...args, '--root', dir]);

const CASES: Case[] = [
  { name: 'stat --procs', run: cli(['stat', '--procs']), still: /^1201 +postgres/m },
  { name: 'stat --procs --json', run: cli(['stat', '--procs', '--json']), still: /"pid": ?1201/ },
  {
    name: "serve's scrape (--top 10)",
    run: async (dir) => {
      const s = new Scraper(openRoot(dir), { top: 10, doctorIntervalMs: 3_600_000, timeoutMs: 8000, doctor: false });
      const out = renderExposition(scrapeFamilies(s.scrape(), { nodeExporterNames: true }));
      return { code: 0, out, err: '' };
    },
    still: /^numakit_process_memory_bytes\{[^}]*pid="1201"/m,
  },
  { name: 'doctor', run: cli(['doctor']), still: /./ },
  {
    name: 'agent --advise --once',
    run: (dir) => cli(['agent', '--advise', '--once', '--interval', '100ms', '--state-dir', join(dir, 'state')])(dir),
    still: /numakit agent ready/,
  },
];

describe('a process that ends in the middle of being sampled', () => {
  const copies: (() => void)[] = [];
  after(() => copies.forEach((r) => r()));

  for (const c of CASES) {
    it(`${c.name}: at every read of it, gone before the read or ESRCH during it, the command goes on`, async () => {
      const base = copyFixture();
      copies.push(base.remove);
      let reads = 0;
      const clean = await withVanish(base.dir, 0, 'gone-before', async () => {
        const r = await c.run(base.dir);
        assert.equal(r.code, 0, r.err);
      });
      reads = clean;
      assert.ok(reads >= 2, `${c.name} read ${PID}'s files ${reads} times`);
      for (const mode of ['gone-before', 'esrch-during'] as const)
        for (let k = 1; k <= reads; k++) {
          const fx = copyFixture();
          copies.push(fx.remove);
          let r = { code: -1, out: '', err: '' };
          await withVanish(fx.dir, k, mode, async () => {
            r = await c.run(fx.dir);
          });
          const at = `${mode} at read ${k} of ${reads}`;
          assert.equal(r.code, 0, `${at}: ${r.err}`);
          assert.doesNotMatch(r.err, /\n\s+at |Error:/, `${at}: a stack trace or raw error`);
          assert.match(r.out, c.still, `${at}: the other processes are still there\n${r.out}`);
        }
    });
  }
});
