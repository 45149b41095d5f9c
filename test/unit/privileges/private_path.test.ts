// Safe when run as root in shared places (src/runtime/private_path.ts): the state and journal
// directories are made 0700 and refused when another user can write them or a component of
// their path (symlinks included) is another user's; a token file is refused when every user can
// read it. Ownership by another user needs root to set up (lchown): those cases skip otherwise.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lchownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { acquireLock } from '../../../src/actuate/journal.js';
import { checkNoOtherWriter, checkSecretFile } from '../../../src/runtime/private_path.js';
import { cacheDir } from '../../../src/runtime/sea_assets.js';
import { readTokenFile } from '../../../src/serve/auth.js';
import { REPO_DIR } from '../../helpers/cli.js';
import { NOBODY } from '../../helpers/other_user.js';

const root = process.getuid?.() === 0;
const asRoot = root ? {} : { skip: 'needs root to give a file to another user (lchown)' };

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'numakit-private-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

const mode = (p: string) => statSync(p).mode & 0o7777;

describe('state and journal directories', () => {
  it('are created 0700, parents included', () => {
    const state = join(dir, 'fresh', 'state');
    acquireLock(state)();
    assert.equal(mode(join(dir, 'fresh')), 0o700);
    assert.equal(mode(state), 0o700);
    assert.equal(mode(join(state, 'journal')), 0o700);
  });

  it('an existing 0755 directory under a sticky world-writable one (/tmp) is fine', () => {
    const sticky = join(dir, 'sticky');
    mkdirSync(sticky);
    chmodSync(sticky, 0o1777);
    const state = join(sticky, 'state');
    mkdirSync(state, { mode: 0o755 });
    acquireLock(state)();
    assert.ok(existsSync(join(state, 'journal')));
  });

  it('a state directory every user can write is refused, and nothing is made in it', () => {
    const state = join(dir, 'open');
    mkdirSync(state);
    chmodSync(state, 0o777);
    assert.throws(
      () => acquireLock(state),
      /^UnsafePathError: state directory (.*)\/open: \1\/open is writable by every user; another user could change what numakit trusts there$/,
    );
    assert.deepEqual(readdirSync(state), []);
  });

  it('a state directory its group can write is refused, even a trusted group', () => {
    const state = join(dir, 'group');
    mkdirSync(state);
    chmodSync(state, 0o770);
    assert.throws(
      () => acquireLock(state),
      /^UnsafePathError: state directory .*\/group: must be owned by root or you and writable by no one else \(it is uid \d+, mode 770; chmod go-w\)$/,
    );
    assert.deepEqual(readdirSync(state), []);
  });

  it('a parent directory every user can write (no sticky bit) is refused', () => {
    const open = join(dir, 'open-parent');
    mkdirSync(open);
    chmodSync(open, 0o777);
    assert.throws(
      () => acquireLock(join(open, 'state')),
      /state directory .*open-parent\/state: .*open-parent is writable by every user; another user could change/,
    );
    assert.equal(existsSync(join(open, 'state')), false);
  });

  it('a symlink on the way that another user owns is refused', asRoot, () => {
    const real = join(dir, 'real');
    mkdirSync(real, { mode: 0o700 });
    const link = join(dir, 'link');
    symlinkSync(real, link);
    lchownSync(link, NOBODY, NOBODY);
    assert.throws(
      () => acquireLock(join(link, 'state')),
      /state directory .*\/link\/state: the symlink .*\/link is owned by uid 65534; another user could change/,
    );
    assert.equal(existsSync(join(real, 'state')), false);
  });

  it("a symlink's target is checked too", asRoot, () => {
    const theirs = join(dir, 'theirs');
    mkdirSync(theirs, { mode: 0o755 });
    lchownSync(theirs, NOBODY, NOBODY);
    const link = join(dir, 'mine');
    symlinkSync(theirs, link);
    assert.throws(() => checkNoOtherWriter(join(link, 'state'), 'state directory'), /theirs is owned by uid 65534/);
  });

  it('numakit rollback --state-dir on a world-writable directory: one line, exit 1, nothing made', () => {
    const state = join(dir, 'cli-open');
    mkdirSync(state);
    chmodSync(state, 0o777);
    const r = spawnSync(process.execPath, [join(REPO_DIR, 'dist/cli/bin.js'), 'rollback', '--state-dir', state], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1' },
    });
    if (!root) {
      assert.match(r.stderr, /needs root/);
      return;
    }
    assert.equal(r.status, 1, r.stderr + r.stdout);
    assert.match(r.stderr, /^numakit: state directory .*cli-open: .*cli-open is writable by every user/);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.deepEqual(readdirSync(state), []);
  });
});

describe('secret files', () => {
  const token = 'correct-horse-battery-staple';

  it('a token file every user can read is refused; 0600 and 0640 are read', () => {
    const f = join(dir, 'token-644');
    writeFileSync(f, `${token}\n`, { mode: 0o644 });
    chmodSync(f, 0o644);
    assert.throws(
      () => readTokenFile(f),
      /^UnsafePathError: --token-file .*token-644: readable or writable by other users \(mode 644\): chmod 600 it/,
    );
    chmodSync(f, 0o600);
    assert.equal(readTokenFile(f), token);
    chmodSync(f, 0o640);
    assert.equal(readTokenFile(f), token);
    chmodSync(f, 0o620);
    assert.throws(() => readTokenFile(f), /readable or writable by other users \(mode 620\)/);
  });

  it('a token file another user owns is refused (they could put their own token in)', asRoot, () => {
    const f = join(dir, 'token-theirs');
    writeFileSync(f, `${token}\n`, { mode: 0o600 });
    lchownSync(f, NOBODY, NOBODY);
    assert.throws(
      () => checkSecretFile(f, '--web.config.file'),
      /--web\.config\.file .*token-theirs: .* owned by uid 65534/,
    );
  });

  it('numakit serve --token-file with a 0644 file: one line, exit 1, before it listens', () => {
    const f = join(dir, 'token-cli');
    writeFileSync(f, `${token}\n`);
    chmodSync(f, 0o644);
    const r = spawnSync(
      process.execPath,
      [join(REPO_DIR, 'dist/cli/bin.js'), 'serve', '--listen', '127.0.0.1:0', '--token-file', f],
      { encoding: 'utf8', timeout: 20_000, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1' } },
    );
    assert.equal(r.status, 1, r.stderr + r.stdout);
    assert.equal(
      r.stderr,
      `numakit: --token-file ${f}: readable or writable by other users (mode 644): chmod 600 it (or 640 for a service's group)\n`,
    );
    assert.doesNotMatch(r.stdout, /listening/);
  });
});

describe('the SEA cache directory (the same rule)', () => {
  it('is refused under a directory another user owns', asRoot, () => {
    const theirs = join(dir, 'cache-theirs');
    mkdirSync(theirs, { mode: 0o755 });
    lchownSync(theirs, NOBODY, NOBODY);
    const saved = process.env['NUMAKIT_CACHE_DIR'];
    process.env['NUMAKIT_CACHE_DIR'] = join(theirs, 'numakit');
    try {
      assert.throws(
        () => cacheDir(),
        /cache directory \(NUMAKIT_CACHE_DIR\) .*cache-theirs\/numakit: .*cache-theirs is owned by uid 65534/,
      );
    } finally {
      if (saved === undefined) delete process.env['NUMAKIT_CACHE_DIR'];
      else process.env['NUMAKIT_CACHE_DIR'] = saved;
    }
  });
});
