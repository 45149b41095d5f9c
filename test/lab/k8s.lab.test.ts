// Least privilege, proven: each Kubernetes mode's container command, from the image's layout
// (test/helpers/image_layout.ts), run in a 2-node guest under exactly its pod's constraints
// as rendered by kubectl kustomize (test/lab/pod_constraints.ts: own mount namespace, read-only
// root, /sys and /proc/sys, the pod's user, capabilities cut to its list, no new privileges).
// Each works with its capabilities and fails clearly with one fewer.
import assert from 'node:assert/strict';
import { chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildImageLayout } from '../helpers/image_layout.js';
import { sectionOk } from './assert.js';
import { guestHelper } from './numakit.js';
import { containerSpec, IMAGE_MOUNT, podCommand, type ContainerSpec } from './pod_constraints.js';
import { runSections, type SectionsRun } from './sections.js';
import { TWO_NODE } from './topologies.js';

const STATE = '/var/lib/numakit';
// A misplaced process of another user (uid 1000): CPUs of node 0, memory on node 1, both kept
// (--pin), so the agent acts only with --override-pins, on a process it cannot touch without
// its capabilities.
const WORKLOAD = `setpriv --reuid 1000 --regid 1000 --clear-groups numactl --cpunodebind=0 --membind=1 node ${guestHelper('agent_workload.mjs')} 48 --pin > /tmp/wl.out 2>&1 &
for i in $(seq 1 300); do grep -q ready /tmp/wl.out 2>/dev/null && break; sleep 0.2; done; WL=$(awk '/ready/{print $2}' /tmp/wl.out); echo "workload $WL"`;
const AGENT_TEST_ARGS = [
  '--once',
  '--interval',
  '3s',
  '--min-rss',
  '16M',
  '--min-cpu',
  '0.05',
  '--include',
  'agent_workload',
  '--override-pins',
  '--tune',
  'threads',
];
// curl, not a Node.js fetch: a node start costs seconds under TCG, curl's a fraction of one.
const fetchMetrics = (port: number) =>
  `rm -f /tmp/metrics.txt; curl -sS -o /tmp/metrics.txt -w 'HTTP %{http_code}\\n' -H 'authorization: Bearer lab-token-0123456789abcdef' http://127.0.0.1:${port}/metrics || echo ERR; cat /tmp/metrics.txt`;
// Until the server answers, or its process has exited (bounded: a section must end). The probe
// is bash's own /dev/tcp: no process start per try, so the poll does not slow the server's start.
const waitPort = (port: number) =>
  `SP=$!; for i in $(seq 1 600); do kill -0 $SP 2>/dev/null || { echo "server exited"; break; }; (: </dev/tcp/127.0.0.1/${port}) 2>/dev/null && break; sleep 0.2; done`;

let image: string;
let work: string;
let run: SectionsRun;
let specs: Record<string, ContainerSpec>;

function sections(): Record<string, string> {
  const s = specs;
  // One pass of the report loop, and no sleep after it.
  const report = { ...s['report']!, env: { ...s['report']!.env, REPORT_INTERVAL: '0' } };
  const once = report.argv.map((a) => a.replace('while :; do', 'for _once in 1; do'));
  assert.notDeepEqual(once, report.argv, 'the report loop is run once');
  const exporter = (spec: ContainerSpec, port: number, o: { dropCap?: string } = {}) => {
    const argv = spec.argv.map((a) => a.replace('127.0.0.1:10464', `127.0.0.1:${port}`));
    return `${podCommand(spec, image, { ...o, argv, background: true })}
${waitPort(port)}
${fetchMetrics(port)}
for p in $(pgrep -f "serve --listen 127.0.0.1:${port}"); do grep CapEff /proc/$p/status; kill $p; done`;
  };
  const agent = (spec: ContainerSpec, extra: string[], o: { dropCap?: string } = {}) =>
    podCommand(spec, image, { ...o, argv: [...spec.argv, ...extra] });
  // stderr with stdout in each section: a command's error lines follow the marker they belong to.
  const sections: Record<string, string> = {
    report: `${podCommand(report, image, { argv: once })}; echo "exit $?"
${podCommand(report, image, { argv: ['sh', '-c', 'grep CapEff /proc/self/status; id -u; echo 0 > /proc/sys/vm/swappiness || echo "proc/sys read-only"; echo x > /sys/kernel/mm/transparent_hugepage/enabled || echo "sys read-only"; touch /usr/x || echo "root read-only"'] })}`,
    exporter: exporter(s['exporter']!, 9471),
    'exporter-processes': `${WORKLOAD}
echo "== with CAP_SYS_PTRACE"; ${exporter(s['exporter-processes']!, 9472)}
echo "== without"; ${exporter(s['exporter-processes']!, 9473, { dropCap: 'SYS_PTRACE' })}
kill $WL`,
    'agent-advise': `${WORKLOAD}
echo "== with CAP_SYS_PTRACE"; ${agent(s['agent']!, AGENT_TEST_ARGS)}
echo "== without"; ${agent(s['agent']!, AGENT_TEST_ARGS, { dropCap: 'SYS_PTRACE' })}
kill $WL`,
    'agent-act': `${WORKLOAD}
echo "== without CAP_SYS_NICE"; ${agent(s['agent-act']!, AGENT_TEST_ARGS, { dropCap: 'SYS_NICE' })}
echo "== with"; ${agent(s['agent-act']!, AGENT_TEST_ARGS)}
echo "affinity after the agent: $(taskset -pc $WL)"
echo "== restore without CAP_SYS_NICE"; ${podCommand(s['restore']!, image, { dropCap: 'SYS_NICE' })}; echo "exit $?"
echo "== restore with"; ${podCommand(s['restore']!, image)}; echo "exit $?"
echo "affinity after restore: $(taskset -pc $WL)"
echo "== the agent running, stopped by the preStop hook"
${podCommand(s['agent-act']!, image, { argv: [...s['agent-act']!.argv, ...AGENT_TEST_ARGS.filter((a) => a !== '--once')], background: true })} 
for i in $(seq 1 900); do taskset -pc $WL | grep -q ': 2,3$\\|: 2-3$' && break; sleep 0.2; done
echo "affinity while the agent runs: $(taskset -pc $WL)"
${podCommand(s['agent-act']!, image, { argv: ['numakit', 'k8s', 'agent-stop', '--state-dir', STATE, '--wait', '60s'] })}; echo "exit $?"
echo "affinity after the preStop hook: $(taskset -pc $WL)"
kill $WL`,
    'numa-balancing-off': `${WORKLOAD}
echo 1 > /proc/sys/kernel/numa_balancing
echo "== without CAP_SYS_ADMIN"; timeout 300 ${agent(s['nb-off']!, ['--interval', '3s', '--include', 'agent_workload'], { dropCap: 'SYS_ADMIN' })}; echo "exit $?"
echo "== with"; ${podCommand(s['nb-off']!, image, { argv: [...s['nb-off']!.argv, '--interval', '3s', '--include', 'agent_workload'], background: true })}
for i in $(seq 1 900); do [ "$(cat /proc/sys/kernel/numa_balancing)" = 0 ] && break; sleep 0.2; done
echo "numa_balancing while the agent runs: $(cat /proc/sys/kernel/numa_balancing)"
${podCommand(s['agent-act']!, image, { argv: ['numakit', 'k8s', 'agent-stop', '--state-dir', STATE, '--wait', '60s'] })}; echo "exit $?"
echo "numa_balancing after: $(cat /proc/sys/kernel/numa_balancing)"
kill $WL`,
  };
  return Object.fromEntries(Object.entries(sections).map(([k, v]) => [k, `exec 2>&1\n${v}`]));
}

describe("Kubernetes modes under their pods' constraints in a 2-node guest", () => {
  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'numakit-lab-k8s-'));
    image = buildImageLayout(work).root;
    // The exporters' token Secret, inside the image's tree (the pod's /tmp is an emptyDir).
    mkdirSync(join(image, 'etc', 'numakit', 'token'), { recursive: true });
    // As the Secret volume mounts it (daemonset.yaml: defaultMode 0440, fsGroup 65534): serve
    // refuses a token file every user can read.
    writeFileSync(join(image, 'etc', 'numakit', 'token', 'token'), 'lab-token-0123456789abcdef\n', { mode: 0o440 });
    chownSync(join(image, 'etc', 'numakit', 'token', 'token'), 0, 65534);
    specs = {
      report: containerSpec('overlays/report', 'numakit'),
      exporter: containerSpec('overlays/exporter', 'numakit'),
      'exporter-processes': containerSpec('variants/exporter-processes', 'numakit'),
      agent: containerSpec('overlays/agent', 'numakit'),
      'agent-act': containerSpec('variants/agent-act', 'numakit'),
      restore: containerSpec('overlays/agent', 'restore', true),
      'nb-off': containerSpec('variants/agent-act-numa-balancing-off', 'numakit'),
    };
    for (const k of ['exporter', 'exporter-processes']) {
      const sp = specs[k]!;
      specs[k] = {
        ...sp,
        argv: sp.argv.map((a) => (a === '/etc/numakit/token/token' ? `${IMAGE_MOUNT}/etc/numakit/token/token` : a)),
      };
    }
    run = await runSections(TWO_NODE, sections(), {
      timeoutMs: Number(process.env['LAB_K8S_TIMEOUT_MS'] ?? 1_200_000),
    });
  });
  after(() => {
    run?.cleanup();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('report: snapshot and doctor report as user 65534 with no capability, /sys, /proc/sys and / read-only', () => {
    const s = sectionOk(run, 'report');
    assert.match(
      s.stdout,
      /^\{"schemaVersion":1,"target":"this machine","host":"numakit-lab",/m,
      'one JSON line on stdout',
    );
    assert.match(s.stdout, /exit 0/);
    assert.match(s.stdout, /CapEff:\s+0000000000000000\n65534\n/);
    for (const what of ['proc/sys', 'sys', 'root']) assert.match(s.stdout, new RegExp(`^${what} read-only$`, 'm'));
  });
  it('exporter: numakit serve as user 65534 with no capability serves /metrics behind its token', () => {
    const s = sectionOk(run, 'exporter');
    assert.match(s.stdout, /HTTP 200\n/);
    assert.match(s.stdout, /^numakit_/m);
    assert.match(s.stdout, /CapEff:\s+0000000000000000/);
  });
  it("exporter with processes: CAP_SYS_PTRACE exports another user's process; without it, a no-permission gap", () => {
    const s = sectionOk(run, 'exporter-processes');
    const pid = /workload (\d+)/.exec(s.stdout)![1]!;
    const [, withCap, without] = s.stdout.split(/== with CAP_SYS_PTRACE|== without/);
    assert.match(withCap!, new RegExp(`pid="${pid}"`));
    assert.doesNotMatch(without!, new RegExp(`pid="${pid}"`));
    assert.match(without!, /numakit_scrape_gaps\{[^}]*reason="no-permission"[^}]*\} [1-9]/);
  });
  it('agent (advise): CAP_SYS_PTRACE reads another user\'s process; without it, "no-permission"', () => {
    const s = sectionOk(run, 'agent-advise');
    const pid = Number(/workload (\d+)/.exec(s.stdout)![1]);
    const [, withCap, without] = s.stdout.split(/== with CAP_SYS_PTRACE|== without/);
    const outcome = (text: string) =>
      text
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { pid?: number; outcome?: string })
        .find((d) => d.pid === pid)?.outcome;
    assert.equal(outcome(withCap!), 'advised', withCap);
    assert.equal(outcome(without!), 'no-permission', without);
  });
  it('agent (act): moves with CAP_SYS_NICE and fails with EPERM without; restore likewise; the preStop hook stops a running agent and it restores', () => {
    const s = sectionOk(run, 'agent-act');
    const pid = Number(/workload (\d+)/.exec(s.stdout)![1]);
    const decisions = (text: string) =>
      text
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { pid?: number; outcome?: string; reason?: string });
    const [, without, withCap, restoreWithout, restoreWith, running] = s.stdout.split(
      /== without CAP_SYS_NICE|== with\n|== restore without CAP_SYS_NICE|== restore with\n|== the agent running/,
    );
    assert.equal(decisions(without!).find((d) => d.pid === pid)?.outcome, 'failed', without);
    assert.match(without!, /not permitted|EPERM/);
    assert.equal(decisions(withCap!).find((d) => d.pid === pid)?.outcome, 'moved', withCap);
    assert.match(withCap!, /affinity after the agent: .*: (2,3|2-3)\n/);
    assert.match(restoreWithout!, /restore incomplete: .*(not permitted|EPERM)/);
    assert.match(restoreWithout!, /exit 1/);
    assert.match(restoreWith!, /\d+ thread affinit(y|ies) restored .*rolled-back\nexit 0/);
    assert.match(restoreWith!, /affinity after restore: .*: (0,1|0-1)\n/);
    assert.match(running!, /affinity while the agent runs: .*: (2,3|2-3)\n/);
    assert.match(
      running!,
      /the agent has stopped and put back what it changed\nexit 0\naffinity after the preStop hook: .*: (0,1|0-1)\n/,
    );
  });
  it('agent with AutoNUMA off: CAP_SYS_ADMIN remounts /proc/sys and turns numa_balancing off, restored on stop; without it, the remount is refused', () => {
    const s = sectionOk(run, 'numa-balancing-off');
    const [, without, withCap] = s.stdout.split(/== without CAP_SYS_ADMIN|== with\n/);
    assert.match(without!, /exit [1-9]/);
    assert.match(without!, /mount: .*(permission denied|must be superuser)/);
    assert.match(withCap!, /numa_balancing while the agent runs: 0\n/);
    assert.match(withCap!, /numa_balancing after: 1\n/);
  });
});
