// contrib/: the Grafana dashboard reads only series numakit serve (or node_exporter, under the
// same names) emits; the alert rules pass promtool check and their unit tests; the exporter's
// systemd unit is read-only with one justified capability.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { startMetrics, type AgentMetrics } from '../../../src/agent/metrics.js';
import { EXAMPLES_DIR } from '../../../src/cli/examples_dir.js';
import { Scraper } from '../../../src/serve/scrape.js';
import { openRoot } from '../../../src/sysfs/root.js';
import { REPO_DIR } from '../../helpers/cli.js';
import { needTools } from '../../helpers/tools.js';
import { everySeries, grafanaQuery, NEED_TEXT, panelNeeds, readDashboard, readRules } from './dashboard_queries.js';
import { copyFixture, OPTS, realisticFourNode, scrapeText } from './helpers.js';
import { metricNames } from './promql_names.js';

const CONTRIB = join(REPO_DIR, 'contrib');
const PROMTOOL = 'promtool';

function names(text: string): Set<string> {
  return new Set(
    text
      .split('\n')
      .filter((l) => l.startsWith('# TYPE '))
      .map((l) => l.split(' ')[2]!),
  );
}

describe('contrib', () => {
  let emitted: Set<string>;
  let fx: ReturnType<typeof realisticFourNode>;
  let agent: AgentMetrics;
  before(async () => {
    fx = realisticFourNode();
    // A kernel with memory tiering and AutoNUMA prints these in /proc/vmstat.
    writeFileSync(
      join(fx.dir, 'proc/vmstat'),
      'pgpromote_success 10\npgdemote_kswapd 5\npgdemote_direct 1\nnuma_hint_faults 7\nnuma_pages_migrated 3\n',
    );
    agent = await startMetrics('127.0.0.1:0', { root: fx.root });
    // Doctor's series appear once its first run (on a worker thread) is done.
    let text = '';
    for (
      const t0 = Date.now();
      !text.includes('numakit_doctor_findings') && Date.now() - t0 < 30_000;
      await new Promise((r) => setTimeout(r, 200))
    ) {
      text = await (await fetch(`http://${agent.address}/metrics`)).text();
    }
    // A machine with a file it cannot parse: numakit_scrape_gaps (the fixture itself has no gap).
    const broken = copyFixture();
    writeFileSync(join(broken.dir, 'sys/devices/system/node/node2/meminfo'), 'Node 2 MemTotal: lots kB\n');
    try {
      emitted = new Set([
        ...names(text),
        // An example with NICs and NVMe: the device IRQ series.
        ...names(scrapeText(new Scraper(openRoot(join(EXAMPLES_DIR, 'epyc-nps4')), OPTS))),
        ...names(scrapeText(new Scraper(broken.root, OPTS))),
      ]);
    } finally {
      broken.remove();
    }
  });
  after(async () => {
    await agent.close();
    fx.remove();
  });

  it('PromQL names: identifiers, not functions, labels, ranges or keywords', () => {
    assert.deepEqual(
      metricNames(
        'sum by (instance, node) (rate(node_memory_numa_numa_miss_total{node="1",x=~"a|b"}[5m])) / clamp_min(foo_bytes offset 30m, 1) > 0.05 and bar == 1',
      ),
      ['bar', 'foo_bytes', 'node_memory_numa_numa_miss_total'],
    );
    assert.deepEqual(metricNames('topk(10, numakit_process_remote_bytes{instance=~"$instance"}) * 1e3'), [
      'numakit_process_remote_bytes',
    ]);
  });

  it('every Grafana panel and variable reads only series the exporter emits', () => {
    const dash = JSON.parse(readFileSync(join(CONTRIB, 'grafana/numakit.json'), 'utf8')) as {
      panels: { title: string; type: string; targets?: { expr: string }[] }[];
      templating: { list: { query: string | object }[] };
    };
    const exprs = [
      ...dash.panels.flatMap((p) => (p.targets ?? []).map((t) => [p.title, t.expr] as const)),
      ...dash.templating.list
        .filter((v) => typeof v.query === 'string' && v.query.startsWith('label_values'))
        .map((v) => ['variable', (v.query as string).replace(/^label_values\((.*), \w+\)$/, '$1')] as const),
    ];
    assert.ok(dash.panels.filter((p) => p.type !== 'row').length >= 20);
    for (const [title, e] of exprs) {
      const ns = metricNames(e);
      assert.ok(ns.length > 0, `${title}: no metric in ${e}`);
      for (const n of ns) assert.ok(emitted.has(n), `${title}: ${n} is not emitted by numakit serve`);
    }
  });

  it('the alert rules read only emitted series; promtool check rules and test rules pass', (t) => {
    const doc = parseYaml(readFileSync(join(CONTRIB, 'prometheus/numakit-alerts.yml'), 'utf8')) as {
      groups: { rules: { alert: string; expr: string }[] }[];
    };
    const rules = doc.groups.flatMap((g) => g.rules);
    assert.deepEqual(rules.map((r) => r.alert).sort(), [
      'NumakitAgentActionsFailing',
      'NumakitAgentRestoreFailures',
      'NumakitCollectorFailing',
      'NumakitDoctorCritical',
      'NumakitNumaMissRateHigh',
      'NumakitRemoteMemoryShareRising',
      'NumakitScrapePartial',
    ]);
    for (const r of rules)
      for (const n of metricNames(r.expr)) assert.ok(emitted.has(n), `${r.alert}: ${n} is not emitted`);
    if (!needTools(t, 'promtool')) return;
    const check = spawnSync(PROMTOOL, ['check', 'rules', 'numakit-alerts.yml'], {
      cwd: join(CONTRIB, 'prometheus'),
      encoding: 'utf8',
    });
    assert.equal(check.status, 0, `${check.stdout}${check.stderr}`);
    assert.match(check.stdout, /SUCCESS: 7 rules found/);
    const test = spawnSync(PROMTOOL, ['test', 'rules', 'numakit-alerts.test.yml'], {
      cwd: join(CONTRIB, 'prometheus'),
      encoding: 'utf8',
    });
    assert.equal(test.status, 0, `${test.stdout}${test.stderr}`);
  });

  it('the dashboard: no unused __inputs; a panel that needs more than the defaults says what in its description', () => {
    const dash = readDashboard();
    const text = JSON.stringify({ ...dash, __inputs: undefined });
    for (const i of dash.__inputs ?? []) assert.ok(text.includes(`\${${i.name}}`), `__inputs ${i.name} is never used`);
    let needing = 0;
    for (const p of dash.panels) {
      for (const need of panelNeeds(p)) {
        needing++;
        assert.ok(p.description?.includes(NEED_TEXT[need]), `${p.title}: its description says "${NEED_TEXT[need]}"`);
      }
      if ((p.targets ?? []).some((t) => t.expr.includes('node_memory_numa_')))
        assert.match(p.description ?? '', /node_exporter --collector\.meminfo_numa/, `${p.title}: names node_exporter`);
    }
    assert.ok(needing >= 8, `${needing} needs`);
  });

  it('Grafana variables and alert rules read as the lab test sends them to Prometheus', () => {
    assert.equal(
      grafanaQuery('rate(x{instance=~"$instance",job=~"$job"}[$__rate_interval])', {
        job: 'numakit',
        instance: '127.0.0.1:9464',
      }),
      'rate(x{instance=~"127\\\\.0\\\\.0\\\\.1:9464",job=~"numakit"}[60s])',
    );
    assert.equal(
      grafanaQuery('x[$__rate_interval]', { job: '', instance: '' }, { scrapeIntervalS: 30, intervalS: 60 }),
      'x[120s]',
    );
    assert.equal(
      everySeries('a{x!="y",z=~"w>"} > 0.25 and (b - b offset 30m) >= bool 1 or c == 0'),
      'a{x!="y",z=~"w>"} > bool 0.25 and (b - b) >= bool 1 or c == bool 0',
    );
    assert.equal(everySeries('max_over_time(p[15m]) == 1'), 'max_over_time(p[15m]) == bool 1');
    for (const r of readRules()) assert.match(everySeries(r.expr), / bool /, r.alert);
  });

  it('contrib/prometheus/prometheus.yml is the scrape config docs/serve.md shows, and promtool accepts it', (t) => {
    const file = readFileSync(join(CONTRIB, 'prometheus/prometheus.yml'), 'utf8');
    assert.ok(readFileSync(join(REPO_DIR, 'docs/serve.md'), 'utf8').includes(`\`\`\`yaml\n${file}\`\`\``));
    if (!needTools(t, 'promtool')) return;
    const r = spawnSync(PROMTOOL, ['check', 'config', 'prometheus.yml'], {
      cwd: join(CONTRIB, 'prometheus'),
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
  });

  it('the exporter unit: numakit serve, a dynamic user, read-only, CAP_SYS_PTRACE alone and no ptrace calls', (t) => {
    const unit = join(CONTRIB, 'numakit-exporter.service');
    const text = readFileSync(unit, 'utf8');
    const key = (k: string) =>
      text
        .split('\n')
        .filter((l) => l.startsWith(`${k}=`))
        .map((l) => l.slice(k.length + 1));
    assert.deepEqual(key('ExecStart'), ['/usr/bin/env numakit serve $OPTIONS']);
    assert.deepEqual(key('DynamicUser'), ['yes']);
    assert.deepEqual(key('CapabilityBoundingSet'), ['CAP_SYS_PTRACE']);
    assert.deepEqual(key('AmbientCapabilities'), ['CAP_SYS_PTRACE']);
    assert.deepEqual(key('ProtectSystem'), ['strict']);
    assert.deepEqual(key('NoNewPrivileges'), ['yes']);
    assert.ok(key('SystemCallFilter').some((v) => /^~ptrace process_vm_readv process_vm_writev/.test(v)));
    // V8 calls pkey_alloc at start-up: without @pkey the filter kills node (SIGSYS) under systemd.
    assert.deepEqual(key('SystemCallFilter')[0], '@system-service @pkey');
    assert.deepEqual(key('ProtectProc'), [], "invisible would hide other users' processes");
    // V8 sizes its young generation only at start (docs/serve.md, "Memory"): the unit passes it.
    assert.ok(key('Environment').includes('NODE_OPTIONS=--max-semi-space-size=4'), key('Environment').join(' '));
    assert.match(text, /# The one capability\. \/proc\/PID\/numa_maps/);
    if (!needTools(t, 'systemd-analyze')) return;
    const r = spawnSync('systemd-analyze', ['verify', unit], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /numakit-exporter\.service/);
  });
});
