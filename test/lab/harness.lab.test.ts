// The harness itself: a command runs in the guest in the current directory with its exit code,
// output and $LAB_OUT files coming back; a failure shows the output; a hung guest is killed.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { assertGuestOk } from './assert.js';
import { runInGuest } from './guest.js';
import { liveGroupMembers } from './procs.js';
import type { Topology } from './topology.js';

const SMALL: Topology = { name: 'harness', nodes: 2, cpus: 1, memMiB: 256 };

function groupAlive(pgid: number): boolean {
  return liveGroupMembers(pgid).length > 0;
}

describe('lab harness', () => {
  it('runs a command in the cwd; exit code, stdout, stderr and $LAB_OUT come back; failures show output', async () => {
    const out = mkdtempSync(join(tmpdir(), 'lab-harness-'));
    try {
      const cmd =
        'pwd; ls -d /sys/devices/system/node/node* | wc -l; cat /sys/devices/system/clocksource/clocksource0/current_clocksource; echo to-host > "$LAB_OUT/f.txt"; ln -s f.txt "$LAB_OUT/link"; echo boom >&2; cut -d" " -f1 /proc/uptime; exit 7';
      const r = await runInGuest(SMALL, cmd, { outDir: out, timeoutMs: 120_000 });
      assert.equal(r.code, 7, r.log);
      assert.match(r.kernelAbi, /^6\.1\./, 'the default kernel is the 6.1 series whatever else is cached');
      assert.equal(r.timedOut, false);
      const [cwd, nodes, clocksource, uptime] = r.stdout.trim().split('\n');
      assert.deepEqual([cwd, nodes], [process.cwd(), '2']);
      // The guest's clock is never ahead of the host's: it cannot have been up longer than its
      // qemu ran (a TSC that runs away is moved off by the clocksource watchdog, qemu_args.ts).
      assert.ok(
        Number(uptime) > 0 && Number(uptime) * 1000 <= r.durationMs,
        `guest uptime ${uptime} s on ${clocksource}, qemu ran ${r.durationMs} ms`,
      );
      assert.equal(r.stderr, 'boom\n');
      assert.equal(readFileSync(join(out, 'f.txt'), 'utf8'), 'to-host\n');
      assert.equal(readlinkSync(join(out, 'link')), 'f.txt', 'relative symlinks come back as they are');
      assert.throws(
        () => assertGuestOk(r, 'probe'),
        (e: Error) => /probe exited 7/.test(e.message) && /\| boom/.test(e.message),
      );
      assert.equal(groupAlive(r.pgid), false, 'qemu outlived the run');
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('kills a hung guest at the timeout, leaving no qemu behind', async () => {
    const started = Date.now();
    const r = await runInGuest(SMALL, 'sleep 600', { timeoutMs: 8_000 });
    assert.equal(r.timedOut, true);
    assert.equal(r.code, null);
    assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`);
    assert.equal(groupAlive(r.pgid), false, 'qemu outlived the timeout');
    assert.throws(() => assertGuestOk(r), /timed out after/);
  });
});
