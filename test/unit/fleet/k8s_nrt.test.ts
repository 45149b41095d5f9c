// numakit k8s nrt: the object is valid against the NodeResourceTopology CRD's v1alpha2 schema
// (with every object closed: a field the schema lacks would be pruned by the API server, so it
// is an error here), and --apply against an API server faked on loopback creates it, replaces
// only its own object, and never overwrites one another exporter made. The fake server
// authorizes each request by the nrt overlay's rendered ClusterRole (403 otherwise), as the
// API server's RBAC would, and the verbs the code called are exactly the verbs granted.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { discoverTopology } from '../../../src/discover/topology.js';
import { buildNrt, hugepageResource, legacyPolicyName } from '../../../src/render/k8s_nrt.js';
import { openRoot } from '../../../src/sysfs/root.js';
import { REPO_DIR, runMain } from '../../helpers/cli.js';
import { EXAMPLES } from '../doctor/cli_helpers.js';
import { skipUnlessTools } from '../../helpers/tools.js';
import { K8S, kustomize } from './k8s_render.js';

type Schema = Record<string, unknown>;
/** Closes every object schema (additionalProperties: false), except metadata (ObjectMeta). */
function closed(s: Schema, key = ''): Schema {
  const out: Schema = { ...s };
  if (s['properties'] && key !== 'metadata') {
    out['properties'] = Object.fromEntries(
      Object.entries(s['properties'] as Record<string, Schema>).map(([k, v]) => [k, closed(v, k)]),
    );
    out['additionalProperties'] = false;
  }
  if (s['items']) out['items'] = closed(s['items'] as Schema);
  return out;
}

const crd = parse(readFileSync(join(REPO_DIR, 'test/fixtures/k8s/noderesourcetopologies-crd.yaml'), 'utf8')) as {
  spec: { versions: { name: string; schema: { openAPIV3Schema: Schema } }[] };
};
const ajv = new Ajv({ strict: false, allErrors: true });
const validate = ajv.compile(closed(crd.spec.versions.find((v) => v.name === 'v1alpha2')!.schema.openAPIV3Schema));

describe('the NodeResourceTopology object', () => {
  for (const name of ['spark-2s', 'cxl-3node', 'epyc-nps4', 'lab-3node-cxl', 'vm-flat-32']) {
    it(`${name}: valid against the CRD's v1alpha2 schema, one zone per node with its distances`, () => {
      const t = discoverTopology(openRoot(join(EXAMPLES, name)));
      const nrt = buildNrt(t, { node: 'w1', policy: 'single-numa-node', scope: 'pod', reservedCpus: [0, 1] });
      assert.ok(validate(nrt), JSON.stringify(validate.errors));
      assert.equal(nrt.zones.length, t.nodes.length);
      for (const [i, z] of nrt.zones.entries()) {
        const n = t.nodes[i]!;
        assert.equal(z.name, `node-${n.id}`);
        assert.deepEqual(
          z.costs.map((c) => c.value),
          t.nodes.map((m) => n.distances[m.id]),
        );
        const cpu = z.resources.find((r) => r.name === 'cpu');
        assert.equal(cpu?.capacity, n.cpus.length > 0 ? String(n.cpus.length) : undefined);
      }
      assert.equal(
        nrt.zones[0]!.resources.find((r) => r.name === 'cpu')!.allocatable,
        String(t.nodes[0]!.cpus.filter((c) => c > 1).length),
      );
    });
  }
  it('names huge page sizes and policies as Kubernetes does', () => {
    assert.deepEqual([2048, 1048576, 64].map(hugepageResource), ['hugepages-2Mi', 'hugepages-1Gi', 'hugepages-64Ki']);
    assert.equal(legacyPolicyName('single-numa-node', 'container'), 'SingleNUMANodeContainerLevel');
    assert.equal(legacyPolicyName('best-effort', 'pod'), 'BestEffortPodLevel');
    assert.equal(legacyPolicyName('none', 'pod'), 'None');
  });
  it('numakit k8s nrt prints it (YAML or JSON) on an example, and refuses options that need --apply', async () => {
    const r = await runMain(['--example', 'lab-3node-cxl', 'k8s', 'nrt', '--node', 'w7', '--json']);
    assert.equal(r.code, 0, r.err);
    assert.ok(validate(JSON.parse(r.out)), JSON.stringify(validate.errors));
    const y = await runMain(['--example', 'lab-3node-cxl', 'k8s', 'nrt', '--node', 'w7']);
    assert.deepEqual(parse(y.out), JSON.parse(r.out));
    assert.equal(
      (await runMain(['--example', 'lab-2node', 'k8s', 'nrt', '--node', 'w7', '--server', 'http://127.0.0.1:1'])).code,
      2,
    );
    assert.equal((await runMain(['--example', 'lab-2node', 'k8s', 'nrt', '--node', 'Bad_Name'])).code, 2);
    assert.equal(
      (await runMain(['--example', 'lab-2node', 'k8s', 'nrt', '--node', 'w7', '--topology-manager-policy', 'strict']))
        .code,
      2,
    );
  });
});

/** What the nrt overlay's ClusterRole grants: "group/resource verb". */
// Rendered when the suite runs (kubectl may be absent: the suite then skips, naming it).
const kubectlSkip = skipUnlessTools('kubectl');
const granted: string[] = kubectlSkip
  ? []
  : kustomize(join(K8S, 'overlays/nrt'))
      .filter((o) => o.kind === 'ClusterRole')
      .flatMap((r) =>
        (r['rules'] as { apiGroups: string[]; resources: string[]; verbs: string[] }[]).flatMap((rule) =>
          rule.apiGroups.flatMap((g) => rule.resources.flatMap((res) => rule.verbs.map((v) => `${g}/${res} ${v}`))),
        ),
      );
/** The RBAC verb of a request to one object or its collection (no watch, list, patch here). */
const VERB: Record<string, string> = { GET: 'get', POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

describe('numakit k8s nrt --apply (API server faked on loopback)', { skip: kubectlSkip }, () => {
  const objects = new Map<string, Record<string, unknown>>();
  const requests: string[] = [];
  const used = new Set<string>();
  let crdInstalled = true;
  let server: Server;
  let url = '';
  const body = (req: IncomingMessage) =>
    new Promise<Record<string, unknown>>((res) => {
      let s = '';
      req.on('data', (c) => (s += c));
      req.on('end', () => res(s === '' ? {} : JSON.parse(s)));
    });
  before(async () => {
    server = createServer(async (req, res) => {
      requests.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
      const send = (status: number, obj: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(obj));
      };
      const base = '/apis/topology.node.k8s.io/v1alpha2/noderesourcetopologies';
      const access = `${/^\/apis\/([^/]+)\/[^/]+\/([^/]+)/
        .exec(req.url ?? '')
        ?.slice(1)
        .join('/')} ${VERB[req.method!]}`;
      if (!granted.includes(access))
        return send(403, { kind: 'Status', message: `forbidden: ${access} is not granted to numakit-nrt` });
      used.add(access);
      if (!crdInstalled || !req.url?.startsWith(base))
        return send(404, { kind: 'Status', message: 'the server could not find the requested resource' });
      const name = req.url.slice(base.length + 1);
      if (req.method === 'GET') {
        const o = objects.get(name);
        return o
          ? send(200, o)
          : send(404, {
              kind: 'Status',
              message: `noderesourcetopologies "${name}" not found`,
              details: { name, kind: 'noderesourcetopologies' },
            });
      }
      const o = await body(req);
      if (!validate(o)) return send(422, { message: JSON.stringify(validate.errors) });
      const meta = o['metadata'] as { name: string; resourceVersion?: string };
      if (req.method === 'POST') objects.set(meta.name, { ...o, metadata: { ...meta, resourceVersion: '1' } });
      else if (req.method === 'PUT') {
        if (meta.resourceVersion !== (objects.get(name)!['metadata'] as { resourceVersion: string }).resourceVersion)
          return send(409, { message: 'conflict' });
        objects.set(name, { ...o, metadata: { ...meta, resourceVersion: String(Number(meta.resourceVersion) + 1) } });
      }
      return send(req.method === 'POST' ? 201 : 200, objects.get(meta.name));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(() => server.close());

  const apply = (...extra: string[]) =>
    runMain([
      '--example',
      'lab-3node-cxl',
      'k8s',
      'nrt',
      '--apply',
      '--node',
      'w7',
      '--server',
      url,
      '--token-file',
      join(REPO_DIR, 'test/fixtures/k8s/token'),
      ...extra,
    ]);

  it('creates the object, then leaves it unchanged, then replaces it when the policy changes', async () => {
    const first = await apply();
    assert.equal(first.code, 0, first.err);
    assert.equal(first.out, 'NodeResourceTopology w7: created (3 zones)\n');
    assert.match(requests.at(-1)!, /^POST .* Bearer test-token$/);
    assert.equal((await apply()).out, 'NodeResourceTopology w7: unchanged (3 zones)\n');
    assert.equal(
      (await apply('--topology-manager-policy', 'restricted')).out,
      'NodeResourceTopology w7: updated (3 zones)\n',
    );
    assert.equal((objects.get('w7')!['metadata'] as { resourceVersion: string }).resourceVersion, '2');
  });

  it('never overwrites an object another exporter made, and names it', async () => {
    objects.set('w8', {
      apiVersion: 'topology.node.k8s.io/v1alpha2',
      kind: 'NodeResourceTopology',
      metadata: { name: 'w8', resourceVersion: '7', managedFields: [{ manager: 'nfd-topology-updater' }] },
      zones: [],
    });
    const before = requests.length;
    const r = await runMain(['--example', 'lab-2node', 'k8s', 'nrt', '--apply', '--node', 'w8', '--server', url]);
    assert.equal(r.code, 1);
    assert.equal(
      r.err,
      "numakit: k8s nrt: NodeResourceTopology w8 belongs to nfd-topology-updater; numakit never overwrites another exporter's object (delete it, or run one exporter per node)\n",
    );
    assert.deepEqual(
      requests.slice(before).map((q) => q.split(' ')[0]),
      ['GET'],
    );
    assert.deepEqual(objects.get('w8')!['zones'], []);
  });

  it('RBAC: the ClusterRole grants exactly the verbs the code calls (every request above was authorized by it)', () => {
    // The verbs the code can call: each apiRequest(c, 'METHOD', ...) in src/.
    const dir = join(REPO_DIR, 'src/actuate');
    const called = new Set(
      readdirSync(dir)
        .filter((f) => f.endsWith('.ts'))
        .flatMap((f) => [...readFileSync(join(dir, f), 'utf8').matchAll(/apiRequest\(\w+, '([A-Z]+)'/g)])
        .map((m) => `topology.node.k8s.io/noderesourcetopologies ${VERB[m[1]!]}`),
    );
    assert.deepEqual([...called].sort(), [...granted].sort(), 'verbs in the code against the ClusterRole');
    assert.deepEqual([...used].sort(), [...granted].sort(), 'verbs the tests above used against the ClusterRole');
  });

  it('a cluster without the CRD is one line saying so', async () => {
    crdInstalled = false;
    try {
      const r = await apply();
      assert.equal(r.code, 1);
      assert.match(
        r.err,
        /^numakit: k8s nrt: reading w7: HTTP 404 \(is the NodeResourceTopology CRD, v1alpha2, installed\?\): the server could not find the requested resource\n$/,
      );
    } finally {
      crdInstalled = true;
    }
  });
});
