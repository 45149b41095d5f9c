// The default port is written once in the code (DEFAULT_PORT, src/serve/listen.ts); the unit,
// the Kubernetes manifests and the docs name the same number, and none names 9464 any more
// (OpenTelemetry's Prometheus exporter's default: docs/serve.md, "The port").
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { DEFAULT_LISTEN, DEFAULT_PORT } from '../../../src/serve/listen.js';
import { REPO_DIR } from '../../helpers/cli.js';

it('serve listens on 127.0.0.1:DEFAULT_PORT by default, outside 9100-9999 and away from 9464', () => {
  assert.deepEqual(DEFAULT_LISTEN, { host: '127.0.0.1', port: DEFAULT_PORT });
  assert.notEqual(DEFAULT_PORT, 9464);
  assert.ok(DEFAULT_PORT < 9100 || DEFAULT_PORT > 9999, 'inside the Prometheus exporters range');
});

it('the exporter unit, the manifests and the docs name DEFAULT_PORT and never 9464', () => {
  // The Service and the processes component copy the DaemonSet's containerPort (kustomize
  // replacements): they name no port, and never the old one.
  for (const f of [
    'deploy/kubernetes/overlays/exporter/service.yaml',
    'deploy/kubernetes/components/exporter-processes/kustomization.yaml',
  ])
    assert.doesNotMatch(readFileSync(join(REPO_DIR, f), 'utf8'), /(?<!\d)9464(?!\d)/, f);
  for (const f of [
    'contrib/numakit-exporter.service',
    'deploy/kubernetes/overlays/exporter/daemonset.yaml',
    'docs/serve.md',
    'README.md',
  ]) {
    // docs/serve.md's section on the choice names the old port on purpose.
    const text = readFileSync(join(REPO_DIR, f), 'utf8').replace(/\n## The port[\s\S]*?(?=\n## )/, '');
    assert.doesNotMatch(text, /(?<!\d)9464(?!\d)/, f);
    assert.match(text, new RegExp(`(:|[pP]ort: )${DEFAULT_PORT}(?!\\d)`), f);
  }
});
