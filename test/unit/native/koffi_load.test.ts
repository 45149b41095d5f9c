// koffi's prebuilt native module is opened directly (docs/startup.md): found as Node's resolution
// would find it, hoisted next to koffi or under koffi's own node_modules, nearest first; and the
// module loaded that way is a working koffi.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadKoffi, prebuiltDir } from '../../../src/native/koffi_load.ts';

const PKG = `@koromix/koffi-${process.platform}-${process.arch}`;

describe('koffi prebuilt lookup', () => {
  it('walks up from the module, hoisted or nested under koffi, nearest first', () => {
    const hoisted = join('/srv/app/node_modules', PKG, 'package.json');
    const nested = join('/srv/app/node_modules/numakit/node_modules/koffi/node_modules', PKG, 'package.json');
    const at =
      (...present: string[]) =>
      (p: string) =>
        present.includes(p);
    const from = '/srv/app/node_modules/numakit/dist/native';
    assert.equal(prebuiltDir(from, at(hoisted)), join('/srv/app/node_modules', PKG));
    assert.equal(
      prebuiltDir(from, at(hoisted, nested)),
      join('/srv/app/node_modules/numakit/node_modules/koffi/node_modules', PKG),
    );
    assert.equal(prebuiltDir(from, at()), null);
  });

  it('the koffi it loads binds libc and calls it', () => {
    const koffi = loadKoffi();
    const getpid = koffi.load('libc.so.6').func('int getpid()');
    assert.equal(getpid(), process.pid);
    assert.equal(typeof koffi.errno, 'function');
  });
});
