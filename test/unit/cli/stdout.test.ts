// Output straight to fd 1 when it cannot be a terminal (src/cli/stdout.ts): which files count,
// and the CLI's output through a pipe, a file and /dev/null, a reader that goes away, and a
// non-blocking pipe that fills up.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { cannotBeTerminal, writeStdout } from '../../../src/cli/stdout.js';
import { REPO_DIR } from '../../helpers/cli.js';
import { needTools } from '../../helpers/tools.js';

const BIN = join(REPO_DIR, 'src/cli/bin.ts');
/** glibc's makedev(): 12 bits of major at 8, the rest of it from bit 44 (a sum: | would cut at 32 bits). */
const dev = (major: number, minor: number) =>
  (((major & 0xfff) << 8) | (minor & 0xff)) + Math.floor(major / 0x1000) * 0x1000 * 2 ** 32;
const char = (rdev: number) => ({ rdev, isCharacterDevice: () => true });

describe('cannotBeTerminal', () => {
  const cases: [string, { rdev: number; isCharacterDevice: () => boolean }, boolean][] = [
    ['a pipe, socket or file (no character device)', { rdev: 0, isCharacterDevice: () => false }, true],
    ['/dev/null (1:3)', char(dev(1, 3)), true],
    ['/dev/zero (1:5)', char(dev(1, 5)), true],
    ['a pseudo-terminal (136:2)', char(dev(136, 2)), false],
    ['a virtual console (4:1)', char(dev(4, 1)), false],
    ['/dev/ttyS0 (4:64)', char(dev(4, 64)), false],
    ['a dynamic major above 4095 (4097:1)', char(dev(4097, 1)), false],
  ];
  for (const [name, st, want] of cases) it(name, () => assert.equal(cannotBeTerminal(st), want));
});

describe('numakit writing straight to fd 1', () => {
  const dir = mkdtempSync(join(tmpdir(), 'numakit-stdout-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const args = ['--import', 'tsx', BIN, '--example', 'spark-2s', 'topo', '--json'];

  it('prints the same through a pipe, into a file and into /dev/null (exit 0, nothing on stderr)', () => {
    const piped = spawnSync(process.execPath, args, { encoding: 'utf8' });
    assert.equal(piped.status, 0, piped.stderr);
    assert.ok(piped.stdout.length > 1000);
    const file = join(dir, 'out.json');
    const fd = openSync(file, 'w');
    try {
      const r = spawnSync(process.execPath, args, { stdio: ['ignore', fd, 'pipe'], encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
    } finally {
      closeSync(fd);
    }
    assert.equal(readFileSync(file, 'utf8'), piped.stdout);
    const devnull = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
    assert.deepEqual([devnull.status, devnull.stderr], [0, '']);
  });

  it('a reader that is gone (numakit ... | head) ends it with 0 and nothing on stderr', async () => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy(); // the read end closes before numakit writes: its write gets EPIPE
    let err = '';
    child.stderr.on('data', (b: Buffer) => (err += b));
    const [code] = await new Promise<[number | null]>((r) => child.on('exit', (c) => r([c])));
    assert.deepEqual([code, err], [0, '']);
  });

  it('a full non-blocking pipe is waited on, not an error: all of the output arrives', async (t) => {
    if (!needTools(t, 'sh')) return;
    // A FIFO opened non-blocking (read-write: no wait for a reader), filled past its 64 KiB
    // while the reader starts late: writes get EAGAIN until it reads.
    const fifo = join(dir, 'fifo');
    spawnSync('mkfifo', [fifo]);
    const got = join(dir, 'got');
    const reader = spawn('sh', ['-c', `sleep 0.3; cat ${fifo} > ${got}`], { stdio: 'ignore' });
    const fd = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
    const text = 'numakit '.repeat(64 * 1024); // 512 KiB
    try {
      writeStdout(text, fd);
    } finally {
      closeSync(fd);
    }
    await new Promise((r) => reader.on('exit', r));
    assert.equal(readFileSync(got, 'utf8'), text);
  });
});
