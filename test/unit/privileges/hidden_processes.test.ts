// Processes this user may not look at are counted, never taken for gone: with /proc mounted
// hidepid=noaccess another user's /proc/PID/stat and status fail with EPERM (EACCES on a copied
// tree), and stat --procs and doctor say how many they could not see. Before, the sampler counted
// them as vanished and doctor's size filter dropped them silently.
// Runs as root (here and in CI): a private mount namespace with its own /proc, the command as
// uid 65534 through setpriv; skipped, saying so, elsewhere.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REPO_DIR } from '../../helpers/cli.js';
import { NOBODY, stageCli, type Staged } from '../../helpers/other_user.js';
import { skipUnlessTools } from '../../helpers/tools.js';

const skip =
  process.getuid?.() === 0
    ? skipUnlessTools('setpriv', 'unshare')
    : 'needs root (a private /proc mount; the tests run as root here and in CI)';

/** `node BIN ARGS` as nobody, in a mount namespace whose /proc is mounted with `procOptions` (none: the host's /proc). */
function asNobody(bin: string, args: readonly string[], procOptions?: string) {
  const setpriv = `exec setpriv --reuid=${NOBODY} --regid=${NOBODY} --clear-groups -- "${process.execPath}" "$@"`;
  const script = procOptions === undefined ? setpriv : `mount -t proc -o ${procOptions} proc /proc && ${setpriv}`;
  const r = spawnSync('unshare', ['--mount', '--', 'sh', '-c', script, 'sh', bin, ...args], {
    cwd: tmpdir(),
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1', LANG: 'C.UTF-8' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('processes hidden from this user', { skip }, () => {
  let staged: Staged;
  let tree: string;
  before(() => {
    staged = stageCli(REPO_DIR);
    tree = join(mkdtempSync(join(tmpdir(), 'numakit-hidden-')), 'tree');
    cpSync(join(REPO_DIR, 'test/fixtures/stat/four-node'), tree, { recursive: true, verbatimSymlinks: true });
    spawnSync('chmod', ['-R', 'a+rX', join(tree, '..')]);
    // 1302 (java) and 1403 (hugeapp), the two largest: root's alone, as hidepid makes them.
    for (const pid of [1302, 1403])
      for (const f of ['stat', 'status']) chmodSync(join(tree, 'proc', String(pid), f), 0o600);
  });
  after(() => {
    staged?.remove();
    if (tree) rmSync(join(tree, '..'), { recursive: true, force: true });
  });

  it('stat --procs under hidepid=noaccess: says how many it could not see, in text and --json', () => {
    const text = asNobody(staged.bin, ['stat', '--procs', '--window', '0.2'], 'hidepid=noaccess');
    assert.equal(text.code, 0, text.err);
    const m =
      /^(\d+) processes not shown: their \/proc\/PID\/stat and status are refused to this user \(\/proc mounted with hidepid/m.exec(
        text.out,
      );
    assert.ok(m !== null, text.out);
    // Every process here but the command's own is root's: well over a few are hidden.
    assert.ok(Number(m[1]) >= 3, m[0]);
    const json = asNobody(staged.bin, ['stat', '--procs', '--window', '0.2', '--json'], 'hidepid=noaccess');
    assert.equal(json.code, 0, json.err);
    assert.ok((JSON.parse(json.out) as { hiddenProcesses: number }).hiddenProcesses >= 3);
    const plain = asNobody(staged.bin, ['stat', '--procs', '--window', '0.2', '--json']);
    assert.equal((JSON.parse(plain.out) as { hiddenProcesses: number }).hiddenProcesses, 0, 'a plain /proc hides none');
  });

  it("stat --procs under hidepid=invisible: says other users' processes are not listed, in text and --json", () => {
    const text = asNobody(staged.bin, ['stat', '--procs', '--window', '0.2'], 'hidepid=invisible');
    assert.equal(text.code, 0, text.err);
    assert.match(
      text.out,
      /^Not shown: other users' processes are not listed to this user \(\/proc mounted with hidepid=invisible: run as root\)\.$/m,
    );
    const json = asNobody(staged.bin, ['stat', '--procs', '--window', '0.2', '--json'], 'hidepid=invisible');
    assert.equal((JSON.parse(json.out) as { othersInvisible: boolean }).othersInvisible, true);
    const plain = asNobody(staged.bin, ['stat', '--procs', '--window', '0.2', '--json']);
    assert.equal((JSON.parse(plain.out) as { othersInvisible: boolean }).othersInvisible, false);
  });

  it('stat --procs and doctor on a tree whose two largest processes are refused: both name them', () => {
    const stat = asNobody(staged.bin, ['--root', tree, 'stat', '--procs']);
    assert.equal(stat.code, 0, stat.err);
    assert.match(stat.out, /^2 processes not shown: their \/proc\/PID\/stat and status are refused/m);
    assert.doesNotMatch(stat.out, /^\s*(1302|1403) /m);
    const doctor = asNobody(staged.bin, ['--root', tree, 'doctor', '-v']);
    assert.ok([0, 1].includes(doctor.code!), doctor.err);
    assert.match(
      doctor.out,
      /\[low-locality\] [^\n]*2 processes hidden from this user \(\/proc mounted with hidepid, or a security module: run as root\)/,
    );
    const json = asNobody(staged.bin, ['--root', tree, 'doctor', '--json']);
    assert.match(json.out, /2 processes hidden from this user/);
  });
});
