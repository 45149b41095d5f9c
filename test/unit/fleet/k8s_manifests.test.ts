// deploy/kubernetes: every kustomization renders with no cluster (kubectl kustomize), every
// object is valid against the Kubernetes and Prometheus Operator schemas (kubernetes-models),
// each mode has exactly the privileges docs/fleet.md lists, and every capability added in the
// sources is justified by a comment naming it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { DaemonSet } from 'kubernetes-models/apps/v1/DaemonSet';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { ClusterRole } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole';
import { ClusterRoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRoleBinding';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { REPO_DIR } from '../../helpers/cli.js';
import { skipUnlessTools } from '../../helpers/tools.js';

const K8S = join(REPO_DIR, 'deploy', 'kubernetes');

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Obj = { kind: string; metadata: { name: string }; [k: string]: any };
const MODELS: Record<string, (o: Obj) => { validate(): void }> = {
  Namespace: (o) => new Namespace(o as never),
  ServiceAccount: (o) => new ServiceAccount(o as never),
  DaemonSet: (o) => new DaemonSet(o as never),
  Service: (o) => new Service(o as never),
  ClusterRole: (o) => new ClusterRole(o as never),
  ClusterRoleBinding: (o) => new ClusterRoleBinding(o as never),
  ServiceMonitor: (o) => new ServiceMonitor(o as never),
};

/** kubectl kustomize DIR: kubectl >= 1.21 has kustomize built in and needs no cluster for it. */
const rendered = new Map<string, Obj[]>();
export function kustomize(dir: string): Obj[] {
  const hit = rendered.get(dir);
  if (hit) return structuredClone(hit);
  const r = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8' });
  if (r.error)
    throw new Error(
      `kubectl not found: rendering deploy/kubernetes needs kubectl >= 1.21 (kustomize built in) on PATH (${r.error.message})`,
    );
  assert.equal(r.status, 0, `kubectl kustomize ${relative(REPO_DIR, dir)}: ${r.stderr}`);
  rendered.set(
    dir,
    parseAllDocuments(r.stdout).map((d) => d.toJS() as Obj),
  );
  return structuredClone(rendered.get(dir)!);
}

const kustomizations = (['base', 'overlays', 'variants'] as const).flatMap((d) =>
  d === 'base'
    ? [join(K8S, 'base')]
    : readdirSync(join(K8S, d))
        .map((n) => join(K8S, d, n))
        .filter((p) => statSync(p).isDirectory()),
);

describe('deploy/kubernetes renders and validates', { skip: skipUnlessTools('kubectl') }, () => {
  for (const dir of kustomizations) {
    it(`${relative(K8S, dir)}: kubectl kustomize renders it; every object is valid`, () => {
      const objs = kustomize(dir);
      assert.ok(objs.some((o) => o.kind === 'DaemonSet'));
      for (const o of objs) {
        const model = MODELS[o.kind];
        assert.ok(model, `${o.kind} ${o.metadata.name}: no schema to check it against`);
        assert.doesNotThrow(() => model(o).validate(), `${o.kind} ${o.metadata.name}`);
      }
    });
  }
});

function daemonset(dir: string): Obj {
  return kustomize(join(K8S, dir)).find((o) => o.kind === 'DaemonSet')!;
}

interface Privileges {
  hostPID: boolean;
  hostNetwork: boolean;
  root: boolean;
  caps: string[];
  initCaps?: string[];
}

function privileges(ds: Obj): Privileges {
  const pod = ds.spec.template.spec;
  const c = pod.containers[0];
  const uid = c.securityContext?.runAsUser ?? pod.securityContext?.runAsUser;
  return {
    hostPID: pod.hostPID === true,
    hostNetwork: pod.hostNetwork === true,
    root: uid === 0,
    caps: [...(c.securityContext?.capabilities?.add ?? [])].sort(),
    ...(pod.initContainers
      ? { initCaps: [...(pod.initContainers[0].securityContext?.capabilities?.add ?? [])].sort() }
      : {}),
  };
}

describe('each mode has exactly its privileges (docs/fleet.md)', { skip: skipUnlessTools('kubectl') }, () => {
  const want: Record<string, Privileges> = {
    base: { hostPID: false, hostNetwork: false, root: false, caps: [] },
    'overlays/report': { hostPID: true, hostNetwork: true, root: false, caps: [] },
    'overlays/exporter': { hostPID: false, hostNetwork: true, root: false, caps: [] },
    'variants/exporter-processes': { hostPID: true, hostNetwork: true, root: true, caps: ['SYS_PTRACE'] },
    'overlays/agent': { hostPID: true, hostNetwork: false, root: true, caps: ['SYS_PTRACE'], initCaps: ['SYS_NICE'] },
    'variants/agent-act': {
      hostPID: true,
      hostNetwork: false,
      root: true,
      caps: ['SYS_NICE', 'SYS_PTRACE'],
      initCaps: ['SYS_NICE'],
    },
    'variants/agent-act-numa-balancing-off': {
      hostPID: true,
      hostNetwork: false,
      root: true,
      caps: ['SYS_ADMIN', 'SYS_NICE', 'SYS_PTRACE'],
      initCaps: ['SYS_ADMIN', 'SYS_NICE'],
    },
    'overlays/nrt': { hostPID: false, hostNetwork: false, root: false, caps: [] },
  };
  for (const [dir, p] of Object.entries(want)) {
    it(`${dir}: ${p.caps.length === 0 ? 'no capabilities' : p.caps.join(' + ')}${p.hostPID ? ', hostPID' : ''}${p.root ? ', root' : ', not root'}`, () => {
      const ds = daemonset(dir);
      assert.deepEqual(privileges(ds), p);
      const pod = ds.spec.template.spec;
      for (const c of [...pod.containers, ...(pod.initContainers ?? [])]) {
        assert.deepEqual(c.securityContext.capabilities.drop, ['ALL'], `${c.name}: drops every capability first`);
        assert.equal(c.securityContext.allowPrivilegeEscalation, false, c.name);
        assert.equal(c.securityContext.readOnlyRootFilesystem, true, c.name);
        assert.notEqual(c.securityContext.privileged, true, c.name);
        const sys = c.volumeMounts.find((m: { mountPath: string }) => m.mountPath === '/sys');
        assert.ok(sys === undefined || sys.readOnly === true, `${c.name}: /sys read-only`);
        for (const m of c.volumeMounts) {
          const v = pod.volumes.find((x: { name: string }) => x.name === m.name);
          if (v.hostPath && m.readOnly !== true)
            assert.equal(
              v.hostPath.path,
              '/var/lib/numakit',
              `${c.name}: the only writable host path is the agent's journal`,
            );
        }
      }
      assert.equal(pod.securityContext.seccompProfile.type, 'RuntimeDefault');
      assert.equal(pod.automountServiceAccountToken, dir === 'overlays/nrt', 'only nrt talks to the API server');
    });
  }
  it('the agent: system-node-critical, restore init container, preStop that stops it and waits, journal on the host', () => {
    const pod = daemonset('overlays/agent').spec.template.spec;
    assert.equal(pod.priorityClassName, 'system-node-critical');
    assert.deepEqual(pod.initContainers[0].command, ['numakit', 'agent', 'restore', '--state-dir', '/var/lib/numakit']);
    assert.deepEqual(pod.containers[0].lifecycle.preStop.exec.command.slice(0, 3), ['numakit', 'k8s', 'agent-stop']);
    assert.ok(pod.containers[0].args.includes('--advise'), 'advise by default');
    assert.ok(!daemonset('variants/agent-act').spec.template.spec.containers[0].args.includes('--advise'));
    assert.deepEqual(pod.volumes.find((v: { name: string }) => v.name === 'state').hostPath, {
      path: '/var/lib/numakit',
      type: 'DirectoryOrCreate',
    });
  });
  it('the exporter runs numakit serve with the agreed interface, behind a token, scraped by a ServiceMonitor', () => {
    const objs = kustomize(join(K8S, 'overlays/exporter'));
    const c = objs.find((o) => o.kind === 'DaemonSet')!.spec.template.spec.containers[0];
    assert.deepEqual(c.command, ['numakit', 'serve']);
    assert.deepEqual(
      c.args.filter((a: string) => a.startsWith('--')),
      ['--listen', '--token-file', '--top', '--no-node-exporter-names'],
    );
    const sm = objs.find((o) => o.kind === 'ServiceMonitor')!;
    assert.equal(sm.spec.endpoints[0].authorization.credentials.name, 'numakit-exporter-token');
  });
});

describe('every capability is justified in a comment', () => {
  const sources = (function walk(d: string): string[] {
    return readdirSync(d).flatMap((n) =>
      statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : n.endsWith('.yaml') ? [join(d, n)] : [],
    );
  })(K8S);
  it('each capability added is named as CAP_X in a comment just above it', () => {
    let seen = 0;
    for (const file of sources) {
      const lines = readFileSync(file, 'utf8').split('\n');
      lines.forEach((line, i) => {
        const caps = [
          ...line.matchAll(
            /(?:^\s*- |value: \[?)(SYS_[A-Z]+|NET_[A-Z]+|DAC_[A-Z]+|CHOWN|SETUID|SETGID|KILL|IPC_LOCK)\b/g,
          ),
        ].map((m) => m[1]!);
        for (const cap of caps) {
          seen++;
          const above = lines
            .slice(Math.max(0, i - 4), i)
            .filter((l) => l.trim().startsWith('#'))
            .join(' ');
          assert.match(
            above,
            new RegExp(`CAP_${cap}\\b`),
            `${relative(REPO_DIR, file)}:${i + 1}: ${cap} without a comment saying why (CAP_${cap}: ...)`,
          );
        }
      });
    }
    assert.ok(seen >= 6, `found ${seen} capability lines`);
  });
});
