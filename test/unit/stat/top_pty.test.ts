// numakit top driven in a pseudo-terminal (util-linux `script`): it draws on the alternate
// screen, quits on q and on Ctrl-C, and gives the terminal back (cursor shown, main screen)
// also when killed with SIGTERM. Runs the built CLI (npm test builds first).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { FIXTURES } from './helpers.js';
import { skipUnlessTools } from '../../helpers/tools.js';

const BIN = new URL('../../../dist/cli/bin.js', import.meta.url).pathname;
const ENTER = '\x1b[?1049h';
const LEAVE = '\x1b[?25h\x1b[?1049l';
const skip = existsSync(BIN) ? skipUnlessTools('script') : 'needs a build (npm run build)';

interface Session {
  output: () => string;
  send: (s: string) => void;
  waitFor: (s: string) => Promise<void>;
  exit: Promise<number | null>;
  pidFile: string;
}

function startTop(interval = 0.2): Session {
  const pidFile = join(mkdtempSync(join(tmpdir(), 'numakit-top-')), 'pid');
  const cmd = `stty cols 120 rows 30; echo $$ > ${pidFile}; exec ${process.execPath} ${BIN} --root ${join(FIXTURES, 'four-node')} top --interval ${interval}`;
  const child = spawn('script', ['-qfec', cmd, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
  const kill = setTimeout(() => child.kill('SIGKILL'), 15000);
  const exit = new Promise<number | null>((r) =>
    child.on('exit', (code) => {
      clearTimeout(kill);
      r(code);
    }),
  );
  const waitFor = async (s: string) => {
    for (let i = 0; i < 200 && !out.includes(s); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(out.includes(s), `never saw ${JSON.stringify(s)} in ${JSON.stringify(out.slice(-300))}`);
  };
  return { output: () => out, send: (s) => child.stdin.write(s), waitFor, exit, pidFile };
}

async function framesThenQuit(key: string): Promise<string> {
  const s = startTop();
  await s.waitFor('numakit top');
  await s.waitFor('  1403 hugeapp');
  s.send(key);
  assert.equal(await s.exit, 0);
  return s.output();
}

test('top draws nodes and processes on the alternate screen and quits on q, restoring the terminal', {
  skip,
}, async () => {
  const out = await framesThenQuit('q');
  assert.ok(out.indexOf(ENTER) < out.indexOf('numakit top'));
  assert.match(out, /   3 \[#*\.+\]  /);
  assert.ok(out.trimEnd().endsWith(LEAVE), JSON.stringify(out.slice(-80)));
});

test('top quits on Ctrl-C (raw mode delivers it as a key) and restores the terminal', {
  skip,
}, async () => {
  const out = await framesThenQuit('\x03');
  assert.ok(out.trimEnd().endsWith(LEAVE));
});

test('top restores the terminal when killed with SIGTERM', {
  skip,
}, async () => {
  const s = startTop();
  await s.waitFor('numakit top');
  process.kill(Number(readFileSync(s.pidFile, 'utf8').trim()), 'SIGTERM');
  assert.equal(await s.exit, 0);
  assert.ok(s.output().trimEnd().endsWith(LEAVE));
});

test('top ends at once on SIGTERM during a long --interval (its timer does not keep it running)', {
  skip,
}, async () => {
  const s = startTop(1000);
  await s.waitFor('numakit top');
  const t0 = Date.now();
  process.kill(Number(readFileSync(s.pidFile, 'utf8').trim()), 'SIGTERM');
  assert.equal(await s.exit, 0);
  assert.ok(Date.now() - t0 < 3000, `top ran on ${Date.now() - t0} ms after SIGTERM`);
  assert.ok(s.output().trimEnd().endsWith(LEAVE));
});

test('top started in the background (top &) is not stopped by the terminal and ends on SIGTERM and SIGHUP', {
  skip,
}, async () => {
  for (const signal of ['SIGTERM', 'SIGHUP'] as const) {
    const dir = mkdtempSync(join(tmpdir(), 'numakit-top-bg-'));
    const pidFile = join(dir, 'pid');
    // set -m: job control, so the background job has its own process group, not the terminal's.
    const cmd = `stty cols 120 rows 30; set -m; ${process.execPath} ${BIN} --root ${join(FIXTURES, 'four-node')} top --interval 0.2 & echo $! > ${pidFile}; wait $!; echo "top exited $?"`;
    const child = spawn('script', ['-qfec', cmd, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    const kill = setTimeout(() => child.kill('SIGKILL'), 15000);
    const exit = new Promise<number | null>((r) =>
      child.on('exit', (code) => {
        clearTimeout(kill);
        r(code);
      }),
    );
    for (let i = 0; i < 200 && !out.includes('  1403 hugeapp'); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(
      out.includes('  1403 hugeapp'),
      `${signal}: it draws in the background: ${JSON.stringify(out.slice(-200))}`,
    );
    const stat = readFileSync(`/proc/${readFileSync(pidFile, 'utf8').trim()}/stat`, 'utf8');
    assert.doesNotMatch(stat.slice(stat.lastIndexOf(')') + 2), /^T/, `${signal}: not stopped by SIGTTIN/SIGTTOU`);
    process.kill(Number(readFileSync(pidFile, 'utf8').trim()), signal);
    assert.equal(await exit, 0, `${signal}: the session ended (kill would have been needed)`);
    assert.match(out, /top exited 0/);
    assert.ok(out.includes(LEAVE), `${signal}: the terminal is given back`);
  }
});
