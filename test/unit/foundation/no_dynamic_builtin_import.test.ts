// The single executable's bundle is a script with no dynamic-import loader: an `import('node:…')`
// that the bundler leaves in place throws "A dynamic import callback was not specified" there,
// on the path that reaches it (topo and doctor on a machine of 512 CPUs or more did). Node's
// own modules are loaded lazily by require (createRequire(import.meta.url)) instead.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const SRC = join(import.meta.dirname, '..', '..', '..', 'src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The lines of `text` that import one of Node's modules dynamically (a type's `typeof import(...)` is no import). */
function dynamicBuiltinImports(text: string): string[] {
  return text.split('\n').filter((line) => /(?<!typeof\s*)\bimport\(\s*['"`]node:/.test(line));
}

describe('no dynamic import() of a Node module in src/', () => {
  it('tells an import() from a type', () => {
    assert.deepEqual(dynamicBuiltinImports("const v8 = await import('node:v8');"), [
      "const v8 = await import('node:v8');",
    ]);
    assert.deepEqual(dynamicBuiltinImports("const x = r('node:os') as typeof import('node:os');"), []);
    assert.deepEqual(dynamicBuiltinImports("await import('./topo.js');"), []);
  });

  it('every src file loads Node modules statically or by require', () => {
    const found = sources(SRC).flatMap((f) =>
      dynamicBuiltinImports(readFileSync(f, 'utf8')).map((l) => `${f.slice(SRC.length + 1)}: ${l.trim()}`),
    );
    assert.deepEqual(found, []);
  });
});
