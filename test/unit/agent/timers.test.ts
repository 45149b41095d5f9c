// Timers and signals: a wait longer than a JavaScript timer can hold (2^31 - 1 ms) once fired
// after 1 ms (`agent --interval 999h` made a pass every millisecond); such values are refused by
// name, the longest accepted one really waits, and SIGTERM during any wait of the agent ends it
// at once, with everything put back.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { listChangeSets } from '../../../src/actuate/journal.js';
import { openSystem } from '../../../src/actuate/system.js';
import { DEFAULT_AGENT } from '../../../src/agent/config.js';
import { runAgent } from '../../../src/agent/run.js';
import { agentConfig } from '../../../src/cli/commands/agent.js';
import { MAX_WAIT_MS } from '../../../src/model/timer_limit.js';
import { runMain } from '../../helpers/cli.js';
import { eachWithFakeMachine, type FakeMachine } from './tree.js';

describe("durations past a timer's range are refused by name", () => {
  it('agent --interval and --cooldown: 999h refused, 576h accepted', async () => {
    await assert.rejects(
      agentConfig(['--interval', '999h']),
      /^UsageError: agent: --interval '999h': at most 576h \(24 days\)$/,
    );
    await assert.rejects(agentConfig(['--cooldown', '600h']), /--cooldown '600h': at most 576h/);
    assert.equal((await agentConfig(['--interval', '576h'])).intervalMs, MAX_WAIT_MS);
  });

  it('top --interval, stat --watch and stat --window: one line, exit 2', async () => {
    for (const args of [
      ['top', '--interval', '9999999'],
      ['stat', '--watch', '9999999'],
      ['stat', '--procs', '--window', '2073601'],
    ]) {
      const r = await runMain(args);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(
        r.err,
        /^numakit: (top|stat): --(interval|watch|window) '\d+': at most 2073600 seconds \(24 days\)\n$/,
      );
    }
  });
});

describe("SIGTERM during the agent's waits", () => {
  let m: FakeMachine;
  let stateDir: string;
  eachWithFakeMachine((machine, dir) => {
    m = machine;
    stateDir = dir;
  });

  it('the longest interval (576h) waits without a timer overflow, and SIGTERM in the wait ends the agent at once, restored', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    const signals = new EventEmitter();
    let ready = false;
    const done = runAgent(
      { ...DEFAULT_AGENT, stateDir, intervalMs: MAX_WAIT_MS },
      {
        root: m.root,
        sys: openSystem(m.root, { isRoot: true }),
        ops: m.ops,
        log: () => {},
        signals,
        pageSize: 4096,
        selfPid: 99999,
        onReady: () => void (ready = true),
      },
    );
    // The baseline, the first window (1 s) and its pass; then the 576h wait.
    for (let i = 0; !ready && i < 400; i++) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 1300));
    const t0 = Date.now();
    signals.emit('SIGTERM');
    assert.equal(await done, 0);
    process.off('warning', onWarning);
    assert.ok(Date.now() - t0 < 500, `ended ${Date.now() - t0} ms after SIGTERM`);
    assert.deepEqual(
      warnings.filter((w) => w === 'TimeoutOverflowWarning'),
      [],
    );
    assert.equal(listChangeSets(stateDir)[0]!.status, 'rolled-back', 'numa_balancing put back');
  });
});

describe("SIGTERM during a command's wait", () => {
  it('stat --watch 1000: ends at once (its timer is cleared), exit 0', async () => {
    const bin = fileURLToPath(new URL('../../../src/cli/bin.ts', import.meta.url));
    const p = spawn(process.execPath, ['--import', 'tsx', bin, 'stat', '--watch', '1000'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    for (let i = 0; i < 600 && !out.includes('node0'); i++) await new Promise((r) => setTimeout(r, 20));
    assert.match(out, /node0/, 'the header is printed before the first wait');
    const t0 = Date.now();
    const exit = new Promise<number | null>((r) => p.on('exit', (code) => r(code)));
    p.kill('SIGTERM');
    const killer = setTimeout(() => p.kill('SIGKILL'), 10_000);
    assert.equal(await exit, 0);
    clearTimeout(killer);
    assert.ok(Date.now() - t0 < 2000, `stat --watch ran on ${Date.now() - t0} ms after SIGTERM`);
  });
});
