// Every Grafana panel and every alert rule of contrib/ returns data from the shipped
// deployments, in one 2-node guest: numakit run exactly as each ships (the systemd unit's
// `numakit serve $OPTIONS`, the Kubernetes exporter and exporter-processes containers' command
// and arguments from kubectl kustomize, the agent unit's `numakit agent` with `--metrics` as
// docs/agent.md shows it), a misplaced process and a NIC on node 1, Debian's Prometheus with the
// shipped scrape config (contrib/prometheus/prometheus.yml; the ServiceMonitor read as the
// Prometheus Operator reads it), and each panel's PromQL sent with the dashboard's variables set
// as Grafana sets them. Prints each panel and rule with its series count per deployment.
// UPDATE_GOLDEN=1 also takes docs/img/dashboard.png from the guest (chromium, slow under TCG).
import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml, stringify } from 'yaml';
import {
  everySeries,
  grafanaQuery,
  type Need,
  panelNeeds,
  readDashboard,
  readRules,
} from '../unit/serve/dashboard_queries.js';
import { sectionOk } from './assert.js';
import { shellQuote } from './guest.js';
import { guestHelper, NUMAKIT } from './numakit.js';
import { containerSpec } from './pod_constraints.js';
import { runSections, type SectionsRun } from './sections.js';
import { REPO_ROOT } from './setup.js';
import { freePort } from './ssh_guests.js';
import { TWO_NODE } from './topologies.js';

const CONTRIB = join(REPO_ROOT, 'contrib');
const PROM = '127.0.0.1:9090';
/**
 * The lab's scrape interval, set on each job: the shipped 15 s, in place of the ServiceMonitor's
 * 30 s too. The checks need each series and, for rates, two samples of it. A shorter interval
 * brings the second sample no sooner in practice: a scrape costs an exporter ~2 s of the guest's
 * CPUs under TCG, which the exporters' start and their first doctor run wait for. Nothing
 * checked depends on the interval: Prometheus's scrape timeout stays 10 s (its default), which
 * is what numakit serve reads from the scrape's header, and Grafana's $__rate_interval stays 60 s
 * (from the data source's own 15 s setting), a window that holds several samples.
 */
const LAB_SCRAPE_INTERVAL = '15s';
// The 2-node guest with 1 GiB a node: four Node.js exporters, their doctor threads, Prometheus and
// a workload thrash in the shared table's 512 MiB a node (no swap: code pages are re-read over 9p).
const GUEST = { ...TWO_NODE, memMiB: 1024 };

interface Deployment {
  readonly name: string;
  /** The command line, numakit's argv after `numakit`. */
  readonly args: string[];
  readonly job: string;
  readonly instance: string;
  readonly provides: readonly Need[];
}

/** ExecStart of a shipped unit after `numakit`, with $OPTIONS as given (the unit's default: empty). */
function unitArgs(unit: string, options: string[]): string[] {
  const text = readFileSync(join(CONTRIB, unit), 'utf8');
  const exec = /^ExecStart=\/usr\/bin\/env numakit (.*)$/m.exec(text)![1]!.split(/\s+/);
  assert.match(text, /^Environment=OPTIONS=$/m, `${unit}: OPTIONS empty by default`);
  return exec.flatMap((a) => (a === '$OPTIONS' ? options : [a]));
}

/** A Kubernetes container's argv after `numakit`, its pod IP and token file set. */
function podArgs(dir: string, podIp: string, tokenFile: string): string[] {
  const argv = containerSpec(dir, 'numakit').argv;
  assert.equal(argv[0], 'numakit');
  return argv
    .slice(1)
    .map((a) => a.replace(/^127\.0\.0\.1:/, `${podIp}:`).replace('/etc/numakit/token/token', tokenFile));
}

/** The scrape config the Prometheus Operator makes of the exporter's ServiceMonitor, for one pod. */
function serviceMonitorJob(address: string, node: string, tokenFile: string): Record<string, unknown> {
  const sm = parseYaml(
    readFileSync(join(REPO_ROOT, 'deploy/kubernetes/overlays/exporter/servicemonitor.yaml'), 'utf8'),
  );
  const ep = sm.spec.endpoints[0];
  assert.equal(ep.authorization.type, 'Bearer');
  assert.ok(/^\d+s$/.test(ep.interval), `the ServiceMonitor's interval ${ep.interval}`);
  return {
    job_name: `serviceMonitor/numakit/numakit-exporter/${node}`,
    scrape_interval: LAB_SCRAPE_INTERVAL,
    authorization: { type: 'Bearer', credentials_file: tokenFile },
    static_configs: [
      {
        targets: [address],
        labels: { __meta_kubernetes_pod_node_name: node, __meta_kubernetes_service_name: 'numakit-exporter' },
      },
    ],
    relabel_configs: [
      // The Operator's: the job is the Service's name.
      { source_labels: ['__meta_kubernetes_service_name'], target_label: 'job' },
      ...(ep.relabelings ?? []).map((r: { sourceLabels: string[]; targetLabel: string }) => ({
        source_labels: r.sourceLabels,
        target_label: r.targetLabel,
      })),
    ],
  };
}

/**
 * awk, over FILE's lines (`N GROUP QUERY`) and the answers so far in dir/N.json: writes curl's
 * config for the queries still to send to cfg, and prints how many groups lack series. A group
 * is what one assertion below checks (a panel in one deployment: any of its targets returning
 * series satisfies it, as the assertion sums them; a variable; an alert rule); `-` expects none.
 * A query is sent again until it has series or its group has them from another target.
 */
const PLAN_AWK = String.raw`{
  f = dir "/" $1 ".json"; s = ""
  while ((getline line < f) > 0) s = s line
  close(f)
  n[NR] = $1; g[NR] = $2; q[NR] = $3
  answered[NR] = index(s, "\"status\":\"success\"") > 0
  series[NR] = answered[NR] && index(s, "\"result\":[]") == 0
  if ($2 != "-") { want[$2] = 1; if (series[NR]) ok[$2] = 1 }
}
END {
  printf "" > cfg
  for (i = 1; i <= NR; i++) {
    if (series[i] || (answered[i] && g[i] in ok)) continue
    printf "url = \"%s%s\"\noutput = \"%s/%s.json\"\n", url, q[i], dir, n[i] > cfg
  }
  missing = 0
  for (x in want) if (!(x in ok)) missing++
  print missing
}
`;

/** One query whose series say, by label c, how many targets are up, scraped twice, and have run doctor. */
const PROGRESS = [
  ['up', 'count(up == 1)'],
  ['twice', 'count(sum_over_time(up[10m]) >= 2)'],
  ['doctor', 'count(numakit_doctor_last_run_timestamp_seconds)'],
]
  .map(([c, q]) => `label_replace(${q}, "c", "${c}", "", "")`)
  .join(' or ');

/**
 * Shell: waits for Prometheus, then until every target has been scraped twice (rates need two
 * samples) and doctor has run in each exporter, then sends the queries of FILE (one curl, four
 * at a time: a Node.js fetch costs 20-30 s of start-up under TCG, a process per query seconds)
 * until every group that must return series has them, or DEADLINE seconds have passed; each
 * answer lands in $LAB_OUT/q/N.json. The waits poll with one static busybox wget a round and
 * bash's own regex (a dynamically linked sed or awk costs most of a second under TCG, and the
 * guest's CPUs are what the exporters' start and doctor wait for). The first batch is asked at
 * the moment the wait ended (the API's time parameter) with the exporters and the workload
 * stopped (SIGSTOP), so that their scrapes do not take the guest's CPUs from the queries; what
 * it still lacks is asked again at the current time with them running.
 */
const QUERY_LOOP = (file: string, plan: string, targets: number, deadline: number) => `mkdir -p "$LAB_OUT/q"
END=$(( $(date +%s) + ${deadline} ))
for i in $(seq 1 2000); do busybox wget -q -O /dev/null http://${PROM}/-/ready 2>/dev/null && break; sleep 0.2; done; t "prometheus ready"
count() { [[ $P =~ \\"c\\":\\"$1\\"\\},\\"value\\":\\[[0-9.]+,\\"([0-9]+)\\" ]] && echo "\${BASH_REMATCH[1]}" || echo 0; }
while :; do
  P=$(busybox wget -q -O - "http://${PROM}/api/v1/query?query=${encodeURIComponent(PROGRESS)}" 2>/dev/null)
  S="targets up $(count up), scraped twice $(count twice), doctor run in $(count doctor)"; [ "$S" != "$LAST" ] && t "$S"; LAST=$S
  [ "$(count twice)" = ${targets} ] && [ "$(count doctor)" = ${targets} ] && break
  [ "$(date +%s)" -gt "$END" ] && break; sleep 1
done; t "every target scraped twice, doctor run in each: $(free -m | awk '/^Mem/{print $3 " MiB used, " $7 " MiB available"}'), load $(cut -d' ' -f1-3 /proc/loadavg)"
AT="time=$(date +%s)&"; PAUSED="$DAEMONS $WL_PID"; kill -STOP $PAUSED
plan() { awk -v dir="$LAB_OUT/q" -v url="http://${PROM}/api/v1/query?$AT""query=" -v cfg=/tmp/q.cfg -f ${plan} ${file}; }
plan > /dev/null
while :; do
  [ -s /tmp/q.cfg ] && curl -s --parallel --parallel-max 4 -K /tmp/q.cfg
  MISSING=$(plan); t "$MISSING checks without the series they should have\${AT:+ at the end of the wait}"
  if [ "$MISSING" -eq 0 ] || [ "$(date +%s)" -gt "$END" ]; then break; fi
  if [ -n "$AT" ]; then kill -CONT $PAUSED; AT=; plan > /dev/null; fi
  sleep 3
done
kill -CONT $PAUSED`;

let work: string;
let run: SectionsRun;
let deployments: Deployment[];
let results: Record<string, { count?: number; labels?: Record<string, string>[]; error?: string }>;
const panelQueries: { id: string; deployment: string; panel: string; needs: Need[] }[] = [];

describe('every panel and alert returns data from the shipped deployments (2-node guest)', () => {
  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'numakit-lab-dash-'));
    const token = join(work, 'token');
    // With the mode the pod's Secret volume gives its files (serve refuses a token others can read).
    const mode = containerSpec('overlays/exporter', 'numakit').secretModes['/etc/numakit/token'];
    assert.ok(mode !== undefined, 'overlays/exporter mounts its token Secret at /etc/numakit/token');
    writeFileSync(token, 'lab-token-0123456789abcdef\n');
    chmodSync(token, mode);
    deployments = [
      {
        name: 'systemd',
        args: unitArgs('numakit-exporter.service', []),
        job: 'numakit',
        instance: '127.0.0.1:10464',
        provides: ['processes', 'devices'],
      },
      {
        name: 'k8s-exporter',
        args: podArgs('overlays/exporter', '127.0.0.2', token),
        job: 'numakit-exporter',
        instance: 'lab-node-a',
        provides: ['devices'],
      },
      {
        name: 'k8s-processes',
        args: podArgs('variants/exporter-processes', '127.0.0.3', token),
        job: 'numakit-exporter',
        instance: 'lab-node-b',
        provides: ['processes', 'devices'],
      },
      {
        name: 'agent',
        args: unitArgs('numakit-agent.service', ['--metrics', '127.0.0.4:10464']),
        job: 'numakit-agent',
        instance: '127.0.0.4:10464',
        provides: ['processes', 'devices', 'agent'],
      },
    ];
    // contrib/prometheus/prometheus.yml as shipped (its job scrapes the systemd unit's address),
    // the same job for the agent's address, and the ServiceMonitor's jobs.
    const shipped = parseYaml(readFileSync(join(CONTRIB, 'prometheus/prometheus.yml'), 'utf8'));
    const job = { ...shipped.scrape_configs[0], scrape_interval: LAB_SCRAPE_INTERVAL };
    assert.deepEqual(job.static_configs[0].targets, ['127.0.0.1:10464']);
    const config = {
      rule_files: shipped.rule_files.map((f: string) => join(CONTRIB, 'prometheus', f)),
      scrape_configs: [
        job,
        { ...job, job_name: 'numakit-agent', static_configs: [{ targets: ['127.0.0.4:10464'] }] },
        serviceMonitorJob('127.0.0.2:10464', 'lab-node-a', token),
        serviceMonitorJob('127.0.0.3:10464', 'lab-node-b', token),
      ],
    };
    writeFileSync(join(work, 'prometheus.yml'), stringify(config));

    // group: the check that needs the query's series (null: none needs them).
    const queries: { id: string; query: string; group: string | null }[] = [];
    const dash = readDashboard();
    for (const d of deployments) {
      const variable = `${d.name}/variable`;
      queries.push({ id: variable, query: `numakit_build_info{job=~"${d.job}"}`, group: variable });
      for (const p of dash.panels.filter((x) => x.targets)) {
        const needs = panelNeeds(p);
        const group = needs.every((n) => d.provides.includes(n)) ? `${d.name}/${p.id}` : null;
        p.targets!.forEach((t, i) => {
          const id = `${d.name}/${p.id}/${i}`;
          queries.push({ id, query: grafanaQuery(t.expr, { job: d.job, instance: d.instance }), group });
          panelQueries.push({ id, deployment: d.name, panel: p.title, needs });
        });
      }
    }
    for (const r of readRules()) {
      const id = `rule/${r.alert}`;
      queries.push({ id, query: everySeries(r.expr), group: id });
    }
    queries.push({ id: 'collectors-failing', query: 'numakit_scrape_collector_success == 0', group: null });
    // One line a query: its number, its group (- for none), the query URL-encoded.
    writeFileSync(
      join(work, 'queries.txt'),
      queries.map((q, i) => `${i} ${q.group ?? '-'} ${encodeURIComponent(q.query)}\n`).join(''),
    );
    writeFileSync(join(work, 'plan.awk'), PLAN_AWK);

    const start = deployments
      .map(
        (d) =>
          `${NUMAKIT} ${d.args.map(shellQuote).join(' ')} > "$LAB_OUT/${d.name}.log" 2>&1 & echo $! > /tmp/${d.name}.pid; DAEMONS="$DAEMONS $!"`,
      )
      .join('\n');
    const screenshot = process.env.UPDATE_GOLDEN
      ? `kill $PROM_PID ${deployments
          .slice(1)
          .map((d) => `$(cat /tmp/${d.name}.pid)`)
          .join(
            ' ',
          )}; sleep 1; timeout 400 node ${guestHelper('dashboard_png.mjs')} http://127.0.0.1:10464/ "$LAB_OUT/dashboard.png"`
      : '';
    const script = `T0=$(date +%s); t() { echo "[$(($(date +%s) - T0)) s] $*"; }
t "guest up for $(cut -d' ' -f1 /proc/uptime) s"
# The NIC on node 1, as firmware would say it: its PCI device's numa_node (virtio's parent) is
# writable by root (pci-sysfs numa_node_store).
NIC=$(ls /sys/class/net | grep -v '^lo$' | head -1); PCI=$(readlink -f /sys/class/net/$NIC/device/..)
echo 1 > $PCI/numa_node; t "nic $NIC on node $(cat $PCI/numa_node), $(ls $PCI/msi_irqs | wc -l) IRQs"
# Prometheus first: its start-up under TCG is long, and it scrapes each target as it comes up.
prometheus --config.file=${shellQuote(join(work, 'prometheus.yml'))} --storage.tsdb.path=/tmp/prom --web.listen-address=${PROM} --log.level=warn > "$LAB_OUT/prometheus.log" 2>&1 & PROM_PID=$!
# A process pinned to node 0's CPUs with its memory on node 1, idle (the guest's CPUs are for
# the exporters): remote memory for the process panels, and doctor's pinned-remote finding.
numactl --cpunodebind=0 --membind=1 node ${guestHelper('agent_workload.mjs')} 128 --pin --idle > /tmp/wl.out 2>&1 & WL_PID=$!
${start}
t started; ${QUERY_LOOP(shellQuote(join(work, 'queries.txt')), shellQuote(join(work, 'plan.awk')), deployments.length, 600)}
${screenshot}
t queried; free -m | head -2; ps -eo time,etime,args --sort=-time | head -8 | cut -c1-120; dmesg | grep -i -E "out of memory|killed process" | tail -3; kill -KILL $(jobs -p) 2>/dev/null; wait; t done`;
    run = await runSections(
      GUEST,
      { dashboard: script },
      {
        timeoutMs: process.env.UPDATE_GOLDEN ? 1_500_000 : 900_000,
        sshPort: await freePort(),
      },
    );
    // Where the time went: the guest's timeline, and the whole run's.
    console.log(`${run.sections['dashboard']?.stdout}guest run ${(run.guest.durationMs / 1000).toFixed(0)} s`);
    results = Object.fromEntries(
      queries.map((q, i) => {
        const file = join(run.outDir, 'q', `${i}.json`);
        const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
        try {
          const j = JSON.parse(text) as {
            status: string;
            error?: string;
            data?: { result: { metric: Record<string, string> }[] };
          };
          if (j.status !== 'success') return [q.id, { error: j.error ?? text }];
          return [q.id, { count: j.data!.result.length, labels: j.data!.result.slice(0, 3).map((r) => r.metric) }];
        } catch {
          return [q.id, { error: `no answer: ${text.slice(0, 200)}` }];
        }
      }),
    );
  });
  after(() => {
    run?.cleanup();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("each deployment's variables resolve as Grafana's would: job and instance from numakit_build_info", () => {
    sectionOk(run, 'dashboard');
    for (const d of deployments) {
      const r = results[`${d.name}/variable`];
      assert.ok(
        r?.labels?.some((l) => l['instance'] === d.instance && l['job'] === d.job),
        `${d.name}: ${JSON.stringify(r)}\n${readFileSync(join(run.outDir, `${d.name}.log`), 'utf8')}\n${readFileSync(join(run.outDir, 'prometheus.log'), 'utf8')}`,
      );
    }
  });

  it('every panel returns series in every deployment that has what it needs; every panel somewhere', () => {
    const byPanel = new Map<string, Map<string, number>>();
    for (const q of panelQueries) {
      const r = results[q.id];
      assert.equal(r?.error, undefined, `${q.deployment} ${q.panel}: ${r?.error}`);
      const row = byPanel.get(q.panel) ?? new Map<string, number>();
      row.set(q.deployment, (row.get(q.deployment) ?? 0) + (r?.count ?? 0));
      byPanel.set(q.panel, row);
    }
    const names = deployments.map((d) => d.name);
    console.log(`panel | ${names.join(' | ')}`);
    for (const [panel, row] of byPanel) console.log(`${panel} | ${names.map((n) => row.get(n) ?? 0).join(' | ')}`);
    const missing: string[] = [];
    for (const d of deployments)
      for (const [panel, row] of byPanel) {
        const needs = panelQueries.find((q) => q.panel === panel)!.needs;
        if (needs.every((n) => d.provides.includes(n)) && (row.get(d.name) ?? 0) === 0)
          missing.push(`${d.name}: ${panel}`);
      }
    assert.deepEqual(missing, [], 'panels without data where they should have it');
  });

  it('every alert rule returns its series (comparisons read as bool); no collector fails', () => {
    for (const r of readRules()) {
      const x = results[`rule/${r.alert}`];
      console.log(`rule ${r.alert}: ${x?.count ?? x?.error}`);
      assert.equal(x?.error, undefined, `${r.alert}: ${x?.error}`);
      assert.ok((x?.count ?? 0) > 0, `${r.alert}: no series for ${everySeries(r.expr)}`);
    }
    assert.equal(results['collectors-failing']?.count, 0, JSON.stringify(results['collectors-failing']));
  });

  it('UPDATE_GOLDEN=1: docs/img/dashboard.png is the systemd deployment in the guest, with processes', (t) => {
    if (!process.env.UPDATE_GOLDEN) return t.skip('set UPDATE_GOLDEN=1 to take the screenshot');
    const png = join(run.outDir, 'dashboard.png');
    assert.ok(existsSync(png), sectionOk(run, 'dashboard').stdout);
    copyFileSync(png, join(REPO_ROOT, 'docs/img/dashboard.png'));
  });
});
