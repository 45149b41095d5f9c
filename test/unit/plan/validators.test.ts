// The validators themselves catch what they are for (so a green validate_files run means something).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { needTools } from '../../helpers/tools.js';
import { checkShell, checkUnits, sparkKeyPatterns, sparkKeysIn } from './validators.js';

test('checkShell flags shellcheck findings and syntax errors', (t) => {
  if (!needTools(t, 'shellcheck')) return;
  assert.match(
    checkShell({ path: '/x.sh', mode: 0o755, about: '', content: '#!/usr/bin/env bash\necho $1\n' }),
    /SC2086/,
  );
  assert.match(
    checkShell({ path: '/x.sh', mode: 0o755, about: '', content: '#!/usr/bin/env bash\nif then\n' }),
    /bash -n/,
  );
  assert.equal(checkShell({ path: '/x.sh', mode: 0o755, about: '', content: '#!/usr/bin/env bash\necho "$1"\n' }), '');
});

test('checkUnits flags unknown keys and bad values', (t) => {
  if (!needTools(t, 'systemd-analyze')) return;
  const unit = (body: string) => [
    {
      path: '/etc/systemd/system/x.service',
      mode: 0o644,
      about: '',
      content: `[Unit]\nDescription=x\n\n[Service]\nExecStart=/usr/bin/x\n${body}\n[Install]\nWantedBy=multi-user.target\n`,
    },
  ];
  assert.equal(checkUnits(unit('')), '');
  assert.match(checkUnits(unit('FooBar=1\n')), /FooBar/);
  assert.match(checkUnits(unit('NUMAPolicy=nonsense\n')), /NUMAPolicy|nonsense/i);
});

test('Spark key patterns accept documented keys only', () => {
  const ok = (k: string) => sparkKeyPatterns().some((re) => re.test(k));
  assert.ok(ok('spark.executor.cores'));
  assert.ok(ok('spark.executorEnv.JAVA_HOME'));
  assert.ok(ok('spark.kubernetes.executor.volumes.persistentVolumeClaim.spark-local-dir-1.options.claimName'));
  assert.ok(!ok('spark.executor.core'));
  assert.ok(!ok('spark.executorEnv.A.B'));
  assert.deepEqual(
    sparkKeysIn({ path: '/s', mode: 0o755, about: '', content: '  --conf spark.a=1 \\\n  --conf "spark.b=x y" \\\n' }),
    ['spark.a', 'spark.b'],
  );
});

test('checkManifests flags schema errors in pods and kubelet configuration', async () => {
  const { checkManifests } = await import('./k8s_schemas.js');
  const pod = (cpu: string) =>
    `apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\nspec:\n  containers:\n    - name: c\n      resources:\n        limits:\n          cpu: "${cpu}"\n`;
  assert.equal(checkManifests(pod('4')), '');
  assert.match(checkManifests(pod('four')), /Pod: .*cpu/);
  const kubelet = (policy: string, node0: string) =>
    `apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\ntopologyManagerPolicy: ${policy}\ntopologyManagerScope: pod\nmemoryManagerPolicy: Static\nreservedSystemCPUs: "0"\nsystemReserved:\n  memory: 1024Mi\nevictionHard:\n  memory.available: 100Mi\nreservedMemory:\n  - numaNode: 0\n    limits:\n      memory: ${node0}\n`;
  assert.equal(checkManifests(kubelet('single-numa-node', '1124Mi')), '');
  assert.match(checkManifests(kubelet('numa', '1124Mi')), /topologyManagerPolicy/);
  assert.match(checkManifests(kubelet('single-numa-node', '1024Mi')), /reservedMemory adds up to 1024Mi/);
});
