// stat --procs reads each thread's stat (where a process ran: its locality) only of the processes
// that can rank among those it prints, not of every process: a process's remote memory is at most
// its memory (numa_maps, read for all), so one with less memory than the last row's remote memory
// cannot rank before it. On both process mixes the rows are those every thread read gives.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { sampleProcesses } from '../../../src/discover/process_sampler.js';
import { rankByRemote } from '../../../src/policy/locality.js';
import { openRoot } from '../../../src/sysfs/root.js';
import { runCommand } from '../../helpers/cli.js';
import { MIXES, TEST, writeScaleCapture } from '../../fixtures/scale_capture.js';

const base = mkdtempSync(join(tmpdir(), 'numakit-scale-threads-'));
after(() => rmSync(base, { recursive: true, force: true }));

const TOP = 5;

for (const mix of MIXES) {
  test(`stat --procs (mix ${mix}): threads read only of processes that can rank among the ${TOP} printed`, async () => {
    const dir = join(base, mix);
    writeScaleCapture(dir, { ...TEST, procs: 400, mix });
    const threadsRead = new Set<number>();
    const root = {
      ...openRoot(dir),
      onAccess: (kind: string, rel: string) => {
        const m = /^proc\/(\d+)\/task\/\d+\/stat$/.exec(rel);
        if (kind === 'file' && m) threadsRead.add(Number(m[1]));
      },
    };
    const stat = (await import('../../../src/cli/commands/stat.js')).default;
    const r = await runCommand(stat, root, ['--procs', '--json', '--top', String(TOP)]);
    assert.equal(r.code, 0, r.err);
    const rows = (JSON.parse(r.out) as { processes: { pid: number; remoteBytes: number }[] }).processes;

    // The rows every process's threads give.
    const all = rankByRemote(await sampleProcesses(openRoot(dir), { windowMs: 0 }));
    assert.deepEqual(
      rows.map((p) => [p.pid, p.remoteBytes]),
      all.slice(0, TOP).map((p) => [p.sample.pid, p.remoteBytes]),
    );

    const bar = rows.at(-1)!.remoteBytes;
    const memory = new Map(all.map((p) => [p.sample.pid, p.sample.memory]));
    for (const pid of threadsRead) {
      const m = memory.get(pid);
      assert.ok(m?.kind === 'ok' && m.totalBytes >= bar, `pid ${pid}: threads read, memory under the bar ${bar}`);
    }
    for (const p of rows) assert.ok(threadsRead.has(p.pid), `pid ${p.pid} printed without its threads read`);
    assert.ok(threadsRead.size < all.length / 4, `threads of ${threadsRead.size} of ${all.length} processes read`);
  });
}
