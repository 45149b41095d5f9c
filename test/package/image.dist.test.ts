// The container image of deploy/kubernetes/Containerfile, proven by building its layout
// (test/helpers/image_layout.ts) and running what the manifests run. Run by `npm run test:dist`.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
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
  it('is Debian slim with Node 20 in both stages, and runs as nobody', () => {
    assert.deepEqual(
      image.stages.map((s) => s.from),
      ['docker.io/library/node:20-bookworm-slim', 'docker.io/library/node:20-bookworm-slim'],
    );
    assert.equal(process.versions.node.split('.')[0], '20', 'the layout is tested with the Node major the image has');
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
