// deploy/kubernetes as a cluster would take it, not object by object: every rendered
// kustomization's namespaced objects are in the documented namespace, every Service selects
// a workload's pods of the same render and has the port its monitor names, every monitor
// selects something, every container of a render runs one image, every component is used by a
// variant; and each documented install (the kubectl lines of each kustomization and of
// docs/fleet.md) works in its order against an empty API server, faked on loopback, that
// refuses what a real one refuses (an object in a namespace that does not exist yet, an object
// its schema rejects, a kind it does not serve).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REPO_DIR } from '../../helpers/cli.js';
import { skipUnlessTools } from '../../helpers/tools.js';
import {
  COMPONENTS,
  collectionPath,
  K8S,
  KINDS,
  KUSTOMIZATIONS,
  kustomize,
  NAMESPACE,
  type Obj,
  podTemplate,
  selects,
} from './k8s_render.js';

const name = (dir: string) => relative(K8S, dir);

describe('each render holds together as a cluster would run it', { skip: skipUnlessTools('kubectl') }, () => {
  for (const dir of KUSTOMIZATIONS) {
    const objs = () => kustomize(dir);
    it(`${name(dir)}: every namespaced object in namespace ${NAMESPACE}, the Namespace object among them`, () => {
      const all = objs();
      assert.ok(
        all.some((o) => o.kind === 'Namespace' && o.metadata.name === NAMESPACE),
        'the namespace comes with the kustomization',
      );
      for (const o of all) {
        const k = KINDS[o.kind];
        assert.ok(k, `${o.kind}: not a kind the API serves here`);
        if (k.namespaced) assert.equal(o.metadata.namespace, NAMESPACE, `${o.kind} ${o.metadata.name}`);
        else assert.equal(o.metadata.namespace, undefined, `${o.kind} ${o.metadata.name} is cluster-scoped`);
        for (const s of o.kind.endsWith('RoleBinding') ? o.subjects : [])
          if (s.kind === 'ServiceAccount') {
            assert.equal(s.namespace, NAMESPACE, `${o.metadata.name}: subject ${s.name}`);
            assert.ok(
              all.some((a) => a.kind === 'ServiceAccount' && a.metadata.name === s.name),
              `${o.metadata.name}: its ServiceAccount ${s.name} is in the render`,
            );
          }
      }
      for (const w of all.filter(podTemplate)) {
        const sa = podTemplate(w)!.spec.serviceAccountName;
        assert.ok(
          all.some((a) => a.kind === 'ServiceAccount' && a.metadata.name === sa),
          `${w.metadata.name}: ServiceAccount ${sa} is in the render`,
        );
      }
    });

    it(`${name(dir)}: every container running numakit serve has the exporter unit's NODE_OPTIONS`, () => {
      // One setting, two deployments (the systemd unit and the DaemonSet): they must not drift.
      const unit = readFileSync(join(REPO_DIR, 'contrib', 'numakit-exporter.service'), 'utf8');
      const want = /^Environment=NODE_OPTIONS=(.*)$/m.exec(unit)?.[1];
      assert.ok(want, 'the exporter unit sets NODE_OPTIONS');
      for (const w of objs().filter(podTemplate))
        for (const c of podTemplate(w)!.spec.containers as Obj[])
          if (c.command?.[0] === 'numakit' && c.command?.[1] === 'serve') {
            const env = (c.env ?? []).find((e: Obj) => e.name === 'NODE_OPTIONS');
            assert.equal(env?.value, want, `${w.metadata.name}/${c.name}`);
          }
    });

    it(`${name(dir)}: each Service selects a workload's pods and serves their ports; each monitor selects something`, () => {
      const all = objs();
      const workloads = all.filter(podTemplate);
      for (const svc of all.filter((o) => o.kind === 'Service')) {
        const pods = workloads.filter(
          (w) =>
            w.metadata.namespace === svc.metadata.namespace &&
            selects(svc.spec.selector, podTemplate(w)!.metadata.labels),
        );
        assert.ok(pods.length > 0, `Service ${svc.metadata.name} selects no pod of this render`);
        for (const p of svc.spec.ports) {
          for (const w of pods) {
            const ports = podTemplate(w)!.spec.containers.flatMap((c: Obj) => c.ports ?? []);
            assert.ok(
              ports.some((cp: Obj) =>
                typeof p.targetPort === 'string'
                  ? cp.name === p.targetPort
                  : cp.containerPort === (p.targetPort ?? p.port),
              ),
              `Service ${svc.metadata.name} port ${p.name}: no container port ${p.targetPort ?? p.port} in ${w.metadata.name}`,
            );
          }
        }
      }
      for (const m of all.filter((o) => o.kind === 'ServiceMonitor' || o.kind === 'PodMonitor')) {
        // Without a namespaceSelector the Prometheus Operator looks in the monitor's own namespace.
        const namespaces = m.spec.namespaceSelector?.matchNames ?? [m.metadata.namespace];
        if (m.kind === 'ServiceMonitor') {
          const svcs = all.filter(
            (o) =>
              o.kind === 'Service' &&
              namespaces.includes(o.metadata.namespace) &&
              selects(m.spec.selector.matchLabels, o.metadata.labels),
          );
          assert.ok(svcs.length > 0, `ServiceMonitor ${m.metadata.name} selects no Service of this render`);
          for (const e of m.spec.endpoints)
            for (const s of svcs)
              assert.ok(
                s.spec.ports.some((p: Obj) => p.name === e.port),
                `ServiceMonitor ${m.metadata.name}: Service ${s.metadata.name} has no port named ${e.port}`,
              );
        } else {
          const pods = workloads.filter(
            (w) =>
              namespaces.includes(w.metadata.namespace) &&
              selects(m.spec.selector.matchLabels, podTemplate(w)!.metadata.labels),
          );
          assert.ok(pods.length > 0, `PodMonitor ${m.metadata.name} selects no pod of this render`);
        }
      }
    });

    it(`${name(dir)}: every container and init container runs the same image, with a version`, () => {
      const images = objs()
        .filter(podTemplate)
        .flatMap((w) => {
          const spec = podTemplate(w)!.spec;
          return [...spec.containers, ...(spec.initContainers ?? [])].map((c: Obj) => `${c.name}=${c.image}`);
        });
      assert.ok(images.length > 0);
      const refs = new Set(images.map((i) => i.split('=')[1]));
      assert.equal(refs.size, 1, `one image for every container: ${images.join(', ')}`);
      assert.match(
        [...refs][0]!,
        /^[^:@]+(:(?!latest$)[\w.-]+|@sha256:[0-9a-f]{64})$/,
        'a tag (not latest) or a digest',
      );
    });
  }

  it('every component is used by a variant (which is how it is rendered and checked)', () => {
    const used = KUSTOMIZATIONS.flatMap((d) =>
      [
        ...readFileSync(join(d, 'kustomization.yaml'), 'utf8').matchAll(/^\s*-\s*(\.\.\/\.\.\/components\/[\w-]+)/gm),
      ].map((m) => join(d, m[1]!)),
    );
    for (const c of COMPONENTS) assert.ok(used.includes(c), `${name(c)}: no variant uses it`);
  });
});

/** An empty cluster's API: the namespaces it starts with and nothing else. */
class FakeApi {
  readonly objects = new Map<string, Obj>();
  server!: Server;
  url = '';
  constructor() {
    for (const ns of ['default', 'kube-system', 'kube-public'])
      this.objects.set(`/api/v1/namespaces/${ns}`, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  }
  async start() {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const [status, out] = this.handle(req.method!, req.url!, body);
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(out));
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', () => r()));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }
  stop() {
    return new Promise((r) => this.server.close(r));
  }
  private status(code: number, reason: string, message: string): [number, unknown] {
    return [code, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason, message, code }];
  }
  private handle(method: string, path: string, body: string): [number, unknown] {
    if (method !== 'POST') return this.status(405, 'MethodNotAllowed', `${method} is not faked`);
    const o = JSON.parse(body) as Obj;
    const k = Object.values(KINDS).find((x) => collectionPath(x, /\/namespaces\/([^/]+)\//.exec(path)?.[1]) === path);
    if (k === undefined || KINDS[o.kind] !== k)
      return this.status(404, 'NotFound', 'the server could not find the requested resource');
    const ns = k.namespaced ? /\/namespaces\/([^/]+)\//.exec(path)![1]! : undefined;
    if (ns !== undefined) {
      if (!this.objects.has(`/api/v1/namespaces/${ns}`))
        return this.status(404, 'NotFound', `namespaces "${ns}" not found`);
      if (o.metadata.namespace !== undefined && o.metadata.namespace !== ns)
        return this.status(
          400,
          'BadRequest',
          'the namespace of the provided object does not match the namespace sent on the request',
        );
    }
    try {
      k.validate(o);
    } catch (e) {
      return this.status(422, 'Invalid', `${o.kind} "${o.metadata.name}" is invalid: ${(e as Error).message}`);
    }
    const key = `${path}/${o.metadata.name}`;
    if (this.objects.has(key))
      return this.status(409, 'AlreadyExists', `${k.plural} "${o.metadata.name}" already exists`);
    this.objects.set(key, { ...o, metadata: { ...o.metadata, ...(ns ? { namespace: ns } : {}) } });
    return [201, this.objects.get(key)];
  }
}

/** What kubectl sends for one object: POST to its collection, in the namespace of -n or the object's. */
async function kubectlCreate(api: FakeApi, o: Obj, namespace?: string): Promise<void> {
  const k = KINDS[o.kind];
  assert.ok(k, `kubectl: no resource type "${o.kind}" (discovery)`);
  const ns = o.metadata.namespace ?? namespace ?? 'default';
  const r = await fetch(`${api.url}${collectionPath(k, ns)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(o),
  });
  const out = (await r.json()) as { message?: string };
  assert.equal(r.status, 201, `${o.kind} ${o.metadata.name}: HTTP ${r.status}: ${out.message}`);
}

/** The kubectl commands a text documents, in order (`$(...)` left as written). */
function documented(text: string): string[] {
  return [
    ...text.matchAll(/kubectl (?:-n \S+ )?(?:apply -k deploy\/\S+|create secret generic \S+)(?: --from-literal=\S+)?/g),
  ].map((m) => m[0]);
}

/** Runs documented kubectl commands against the fake API, as kubectl would. */
async function install(api: FakeApi, commands: string[]): Promise<void> {
  for (const cmd of commands) {
    const apply = /^kubectl apply -k (\S+)$/.exec(cmd);
    const secret = /^kubectl -n (\S+) create secret generic (\S+) --from-literal=(\w+)=/.exec(cmd);
    if (apply) {
      // kubectl apply -k sends the objects in kustomize's order (namespaces first).
      for (const o of kustomize(join(REPO_DIR, apply[1]!))) await kubectlCreate(api, o);
    } else if (secret) {
      const [, ns, secretName, key] = secret;
      await kubectlCreate(
        api,
        {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: secretName! },
          data: { [key!]: Buffer.from('x'.repeat(32)).toString('base64') },
        },
        ns,
      );
    } else assert.fail(`${cmd}: not a command this test knows`);
  }
}

/** Secrets that the objects of a namespace refer to (volumes, monitors' credentials). */
function secretsReferenced(objs: Obj[]): string[] {
  return objs.flatMap((o) => [
    ...(podTemplate(o)?.spec.volumes ?? []).flatMap((v: Obj) => (v.secret ? [v.secret.secretName] : [])),
    ...(o.kind.endsWith('Monitor')
      ? (o.spec.endpoints ?? o.spec.podMetricsEndpoints).flatMap((e: Obj) =>
          e.authorization?.credentials ? [e.authorization.credentials.name] : [],
        )
      : []),
  ]);
}

describe('the documented install order works against an empty API server', { skip: skipUnlessTools('kubectl') }, () => {
  let api: FakeApi;
  before(async () => {
    api = new FakeApi();
    await api.start();
  });
  after(() => api.stop());

  it('the fake API refuses an object in a namespace that does not exist, as a real one does', async () => {
    await assert.rejects(
      kubectlCreate(api, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } }, NAMESPACE),
      /HTTP 404: namespaces "numakit" not found/,
    );
    await assert.rejects(
      kubectlCreate(api, {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 's' },
        spec: { ports: [{ port: 'x' }] },
      }),
      /HTTP 422/,
    );
  });

  const sources = [
    ...KUSTOMIZATIONS.filter((d) => !d.endsWith('base')).map((d) => join(d, 'kustomization.yaml')),
    join(REPO_DIR, 'docs/fleet.md'),
  ];
  for (const file of sources) {
    it(`${relative(REPO_DIR, file)}: its kubectl lines, in order, on a fresh cluster; every Secret referenced exists after`, async () => {
      const fresh = new FakeApi();
      await fresh.start();
      try {
        const text = readFileSync(file, 'utf8');
        const cmds = documented(text);
        if (file.endsWith('kustomization.yaml'))
          assert.ok(
            cmds.includes(`kubectl apply -k ${relative(REPO_DIR, join(file, '..'))}`),
            `documents its own kubectl apply -k: ${cmds.join('; ')}`,
          );
        else
          assert.ok(
            cmds.some((c) => c.includes('create secret')),
            'docs/fleet.md shows the exporter install',
          );
        await install(fresh, cmds);
        const inNs = [...fresh.objects.values()].filter((o) => o.metadata.namespace === NAMESPACE);
        for (const s of secretsReferenced(inNs))
          assert.ok(
            inNs.some((o) => o.kind === 'Secret' && o.metadata.name === s),
            `Secret ${s} is referenced and the documented commands never create it`,
          );
      } finally {
        await fresh.stop();
      }
    });
  }
});
