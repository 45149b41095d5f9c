// numakit migrate PID FROM TO (migratepages): the result lines and JSON from a table, and the
// command on this machine (node 0) against a child process holding memory: both movers, the
// threads moved along, and the errors (no such process, node, pid) as one line each.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  bytesPerNode,
  leftBytes,
  renderMigrate,
  renderMigrateJson,
  type MigrateResult,
} from '../../../src/render/migrate.ts';

const bin = fileURLToPath(new URL('../../../src/cli/bin.ts', import.meta.url));
const numakit = (args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', bin, ...args], { encoding: 'utf8' });

const base: MigrateResult = {
  pid: 42,
  from: [1],
  to: [0],
  mover: 'migrate_pages',
  end: 'done',
  movedBytes: 240 << 20,
  plannedBytes: null,
  pagesNotMoved: 0,
  ms: 1500,
  threadsMoved: null,
  nodesBefore: new Map([
    [0, 10 << 20],
    [1, 240 << 20],
  ]),
  nodesAfter: new Map([[0, 250 << 20]]),
};

describe('migrate: what it says', () => {
  it('counts bytes per node from numa_maps and what left the FROM nodes', () => {
    const per = bytesPerNode([
      {
        pageKb: 4,
        pages: new Map([
          [0, 10],
          [1, 5],
        ]),
      },
      { pageKb: 2048, pages: new Map([[1, 1]]) },
      { pageKb: null, pages: new Map([[0, 1]]) },
    ]);
    assert.deepEqual(
      [...per],
      [
        [0, 11 * 4096],
        [1, 5 * 4096 + (2 << 20)],
      ],
    );
    assert.equal(
      leftBytes(
        new Map([
          [1, 100],
          [2, 50],
        ]),
        new Map([
          [1, 10],
          [2, 60],
        ]),
        [1, 2],
      ),
      80,
    );
    assert.equal(leftBytes(new Map([[1, 10]]), new Map([[1, 20]]), [1]), 0);
  });

  it('one line for how it ended, then the process per node before and after', () => {
    const cases: Array<[Partial<MigrateResult>, string]> = [
      [{}, 'pid 42: moved 240 MiB from node 1 to node 0 in 1.5 s\n'],
      [
        { pagesNotMoved: 3 },
        'pid 42: moved 240 MiB from node 1 to node 0 in 1.5 s (3 pages not moved: busy, pinned or shared)\n',
      ],
      [
        {
          mover: 'paced',
          end: 'stopped',
          signal: 'SIGINT',
          movedBytes: 100 << 20,
          plannedBytes: 240 << 20,
          from: [1, 2],
          to: [0, 3],
        },
        'pid 42: stopped by SIGINT after moving 100 MiB of 240 MiB from nodes 1-2 to nodes 0,3 in 1.5 s\n',
      ],
      [{ end: 'gone', movedBytes: 0 }, 'pid 42: the process exited after 0 B had moved from node 1 to node 0\n'],
      [
        { end: 'full', message: 'node 0 is full' },
        'pid 42: the move from node 1 to node 0 stopped after 240 MiB: node 0 is full\n',
      ],
    ];
    for (const [over, head] of cases) {
      const text = renderMigrate({ ...base, ...over });
      assert.equal(text, `${head}  node 0: 10 MiB -> 250 MiB\n  node 1: 240 MiB -> 0 B\n`);
    }
    assert.match(renderMigrate({ ...base, threadsMoved: 4 }), /^threads moved to node 0's CPUs: 4$/m);
    const j = JSON.parse(renderMigrateJson({ ...base, nodesAfter: null }));
    assert.deepEqual(j.nodesBefore, { '0': 10 << 20, '1': 240 << 20 });
    assert.equal(j.nodesAfter, null);
    assert.equal(j.schemaVersion, 1);
    assert.equal(j.mover, 'migrate_pages');
  });
});

describe('numakit migrate on this machine', () => {
  let child: ChildProcess;
  before(async () => {
    child = spawn(
      process.execPath,
      ['-e', 'globalThis.b = Buffer.alloc(32 << 20, 1); console.log("ready"); setInterval(() => {}, 1000)'],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
  });
  after(() => child.kill());

  it('migrate_pages, as migratepages: the process per node before and after, exit 0', () => {
    const r = numakit(['migrate', String(child.pid), '0', '0', '--json']);
    assert.equal(r.status, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.equal(j.mover, 'migrate_pages');
    assert.equal(j.end, 'done');
    assert.ok(j.nodesBefore['0'] > 32 << 20, JSON.stringify(j.nodesBefore));
    assert.equal(j.movedBytes, 0);
    const text = numakit(['migrate', String(child.pid), 'all', '0']);
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, /^pid \d+: moved 0 B from node 0 to node 0 in \d+\.\d s\n  node 0: \d/);
  });

  it('--paced --rate with --threads: the mover and the threads bound to the FROM nodes moved along', () => {
    const r = numakit(['migrate', String(child.pid), '0', '0', '--rate', '200', '--threads', '--json']);
    assert.equal(r.status, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.equal(j.mover, 'paced');
    assert.equal(j.end, 'done');
    assert.ok(j.threadsMoved >= 1, String(j.threadsMoved));
  });

  it('errors are one line: no such process, no such node, not a pid, a bad rate', () => {
    const cases: Array<[string[], number, string]> = [
      [['migrate', '999999999', '0', '0'], 1, 'numakit: migrate: no process 999999999\n'],
      [
        ['migrate', String(child.pid), '0', '9'],
        1,
        "numakit: migrate: invalid node specification '9': node 9 does not exist (nodes: 0)\n",
      ],
      [['migrate', 'self', '0', '0'], 2, "numakit: migrate: 'self' is not a process id\n"],
      [
        ['migrate', '1', '0', '0', '--rate', 'fast'],
        2,
        "numakit: migrate: --rate 'fast': not a positive number of MB/s\n",
      ],
    ];
    for (const [args, code, err] of cases) {
      const r = numakit(args);
      assert.equal(r.status, code, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stderr, err);
    }
  });
});
