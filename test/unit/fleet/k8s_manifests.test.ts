// deploy/kubernetes: every kustomization renders with no cluster (kubectl kustomize), every
// object is valid against the Kubernetes and Prometheus Operator schemas (kubernetes-models),
// each mode has exactly the privileges docs/fleet.md lists, and every capability added in the
// sources is justified by a comment naming it.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import type { IDaemonSet } from 'kubernetes-models/apps/v1/DaemonSet';
import type { IServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { REPO_DIR } from '../../helpers/cli.js';
import { skipUnlessTools } from '../../helpers/tools.js';
import { K8S, KINDS, KUSTOMIZATIONS, kustomize } from './k8s_render.js';

describe('deploy/kubernetes renders and validates', { skip: skipUnlessTools('kubectl') }, () => {
  for (const dir of KUSTOMIZATIONS) {
    it(`${relative(K8S, dir)}: kubectl kustomize renders it; every object is valid`, () => {
      const objs = kustomize(dir);
      assert.ok(objs.some((o) => o.kind === 'DaemonSet'));
      for (const o of objs) {
        const k = KINDS[o.kind];
        assert.ok(k, `${o.kind} ${o.metadata.name}: no schema to check it against`);
        assert.doesNotThrow(() => k.validate(o), `${o.kind} ${o.metadata.name}`);
      }
    });
  }
});

function daemonset(dir: string): IDaemonSet {
  return kustomize(join(K8S, dir)).find((o) => o.kind === 'DaemonSet')! as unknown as IDaemonSet;
}

/** The DaemonSet's pod spec (every manifest here has one). */
const podOf = (ds: IDaemonSet) => ds.spec!.template.spec!;

interface Privileges {
  hostPID: boolean;
  hostNetwork: boolean;
  root: boolean;
  caps: string[];
  initCaps?: string[];
}

function privileges(ds: IDaemonSet): Privileges {
  const pod = podOf(ds);
  const c = pod.containers[0]!;
  const uid = c.securityContext?.runAsUser ?? pod.securityContext?.runAsUser;
  return {
    hostPID: pod.hostPID === true,
    hostNetwork: pod.hostNetwork === true,
    root: uid === 0,
    caps: [...(c.securityContext?.capabilities?.add ?? [])].sort(),
    ...(pod.initContainers
      ? { initCaps: [...(pod.initContainers[0]!.securityContext?.capabilities?.add ?? [])].sort() }
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
      const pod = podOf(ds);
      for (const c of [...pod.containers, ...(pod.initContainers ?? [])]) {
        const sc = c.securityContext!;
        assert.deepEqual(sc.capabilities!.drop, ['ALL'], `${c.name}: drops every capability first`);
        assert.equal(sc.allowPrivilegeEscalation, false, c.name);
        assert.equal(sc.readOnlyRootFilesystem, true, c.name);
        assert.notEqual(sc.privileged, true, c.name);
        const sys = c.volumeMounts!.find((m) => m.mountPath === '/sys');
        assert.ok(sys === undefined || sys.readOnly === true, `${c.name}: /sys read-only`);
        for (const m of c.volumeMounts!) {
          const v = pod.volumes!.find((x) => x.name === m.name)!;
          if (v.hostPath && m.readOnly !== true)
            assert.equal(
              v.hostPath.path,
              '/var/lib/numakit',
              `${c.name}: the only writable host path is the agent's journal`,
            );
        }
      }
      assert.equal(pod.securityContext!.seccompProfile!.type, 'RuntimeDefault');
      assert.equal(pod.automountServiceAccountToken, dir === 'overlays/nrt', 'only nrt talks to the API server');
    });
  }
  it('the agent: system-node-critical, restore init container, preStop that stops it and waits, journal on the host', () => {
    const pod = podOf(daemonset('overlays/agent'));
    const agent = pod.containers[0]!;
    assert.equal(pod.priorityClassName, 'system-node-critical');
    assert.deepEqual(pod.initContainers![0]!.command, [
      'numakit',
      'agent',
      'restore',
      '--state-dir',
      '/var/lib/numakit',
    ]);
    assert.deepEqual(agent.lifecycle!.preStop!.exec!.command!.slice(0, 3), ['numakit', 'k8s', 'agent-stop']);
    assert.ok(agent.args!.includes('--advise'), 'advise by default');
    assert.ok(!podOf(daemonset('variants/agent-act')).containers[0]!.args!.includes('--advise'));
    assert.deepEqual(pod.volumes!.find((v) => v.name === 'state')!.hostPath, {
      path: '/var/lib/numakit',
      type: 'DirectoryOrCreate',
    });
  });
  it('the exporter runs numakit serve with the agreed interface, behind a token, scraped by a ServiceMonitor', () => {
    const objs = kustomize(join(K8S, 'overlays/exporter'));
    const c = podOf(objs.find((o) => o.kind === 'DaemonSet')! as unknown as IDaemonSet).containers[0]!;
    assert.deepEqual(c.command, ['numakit', 'serve']);
    assert.deepEqual(
      c.args!.filter((a) => a.startsWith('--')),
      ['--listen', '--token-file', '--top'],
    );
    const sm = objs.find((o) => o.kind === 'ServiceMonitor')! as unknown as IServiceMonitor;
    assert.equal(sm.spec.endpoints![0]!.authorization!.credentials!.name, 'numakit-exporter-token');
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
