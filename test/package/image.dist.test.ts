// The container image of deploy/kubernetes/Containerfile, proven by building its layout
// (test/helpers/image_layout.ts) and running what the manifests run. Run by `npm run test:dist`.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REPO_DIR } from '../helpers/cli.js';
import { buildImageLayout, type Stage } from '../helpers/image_layout.js';

let dir: string;
let image: { root: string; bin: string; stages: Stage[] };
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'numakit-image-'));
  image = buildImageLayout(dir);
});
after(() => rmSync(dir, { recursive: true, force: true }));

function numakit(...args: string[]) {
  return spawnSync(image.bin, args, {
    encoding: 'utf8',
    cwd: dir,
    env: { PATH: `${dirname(image.bin)}:${dirname(process.execPath)}:/usr/bin:/bin`, HOME: dir, LANG: 'C.UTF-8' },
  });
}

describe('the container image', () => {
  it('is Debian slim with one supported Node LTS (22 or 24) in both stages, and runs as nobody', () => {
    const froms = image.stages.map((s) => s.from);
    assert.equal(froms.length, 2);
    assert.equal(froms[0], froms[1], 'the build and the final stage run the same Node');
    const major = /^docker\.io\/library\/node:(\d+)-[a-z]+-slim$/.exec(froms[0]!)?.[1];
    assert.ok(major === '22' || major === '24', `${froms[0]}: not a supported Node LTS (22 or 24)`);
    // The layout below runs with this test's Node: package.json's engines must admit both.
    const engines = (JSON.parse(readFileSync(join(REPO_DIR, 'package.json'), 'utf8')) as { engines: { node: string } })
      .engines.node;
    const min = Number(/^>=(\d+)/.exec(engines)?.[1]);
    assert.ok(min <= Number(major) && min <= Number(process.versions.node.split('.')[0]), engines);
    assert.equal(image.stages[1]!.user, '65534:65534');
  });
  it('installs the packed numakit without dev dependencies', () => {
    const pkg = join(image.root, 'usr', 'local', 'lib', 'node_modules', 'numakit');
    assert.ok(existsSync(join(pkg, 'dist', 'cli', 'bin.js')));
    assert.ok(!existsSync(join(pkg, 'node_modules', 'typescript')));
    assert.ok(!existsSync(join(pkg, 'src')));
  });
  it("runs the modes' commands: doctor --json, snapshot, fleet report, serve --help, agent --help", () => {
    const doctor = numakit('--example', 'spark-2s', 'doctor', '--json');
    assert.ok(doctor.status === 0 || doctor.status === 1, doctor.stderr);
    assert.equal((JSON.parse(doctor.stdout) as { schemaVersion: number }).schemaVersion, 1);
    const snap = numakit('--example', 'lab-2node', 'snapshot', join(dir, 'w1.tar.gz'));
    assert.equal(snap.status, 0, snap.stderr);
    const fleet = numakit('fleet', 'report', '--json', join(dir, 'w1.tar.gz'));
    assert.equal(fleet.status, 0, fleet.stderr);
    for (const cmd of ['serve', 'agent', 'k8s']) assert.equal(numakit(cmd, '--help').status, 0, cmd);
  });
});
