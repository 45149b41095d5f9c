// The shipped systemd units run by a real systemd (issue 24 item 4): one 2node guest whose PID 1
// is systemd (test/lab/systemd_guest.ts). numakit is where \`npm install -g\` puts it (the
// checkout bind-mounted at /usr/local/lib/node_modules/numakit, its bin linked in
// /usr/local/bin: outside /home and /tmp, which ProtectHome and PrivateTmp hide), the unit files
// copied unchanged (no drop-in: their \`/usr/bin/env numakit\` finds it), the agent's options in
// /etc/default/numakit-agent as its unit's comment says. A process with its memory on node 1 and
// its threads bound to node 0 is there first; \`systemctl start\` returns once the agent sent
// READY=1 (Type=notify); the sandboxed agent moves the memory to node 0 and pings the watchdog;
// \`systemctl stop\` (SIGTERM, then ExecStopPost's restore) puts kernel.numa_balancing back. The
// exporter's unit is started and scraped in the same boot. A system call the unit's filter
// refuses kills node with SIGSYS: the section then prints the kernel's audit line naming it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sectionOk } from './assert.js';
import { guestHelper } from './numakit.js';
import { runSections, type SectionsRun } from './sections.js';
import { REPO_ROOT } from './setup.js';
import { shellQuote } from './guest.js';
import { TWO_NODE } from './topologies.js';

const UNIT = 'numakit-agent.service';
const OPTIONS = '--interval 2s --tune pages --override-pins --include agent_workload';
// Pages of the workload per node, from its numa_maps: "N0=12 N1=16372".
const PAGES = `pages() { awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^N[0-9]+=/) { split($i, a, "="); n[a[1]] += a[2] } }
  END { printf "N0=%d N1=%d\\n", n["N0"], n["N1"] }' /proc/$1/numa_maps; }`;

const SECTIONS = {
  unit: `set -eu
${PAGES}
# Installed as npm install -g would: under /usr/local, outside /home and /tmp (ProtectHome, PrivateTmp).
mkdir -p /usr/local/lib/node_modules/numakit
mount --bind ${shellQuote(REPO_ROOT)} /usr/local/lib/node_modules/numakit
ln -sf ../lib/node_modules/numakit/dist/cli/numakit.cjs /usr/local/bin/numakit
[ -x /usr/bin/node ] || ln -sf "$(command -v node)" /usr/local/bin/node
install -m 0644 contrib/${UNIT} /etc/systemd/system/${UNIT}
cmp contrib/${UNIT} /etc/systemd/system/${UNIT} && echo "unit=as-shipped"
echo 'OPTIONS="${OPTIONS}"' > /etc/default/numakit-agent
systemctl daemon-reload
echo "balancing_before=$(cat /proc/sys/kernel/numa_balancing)"
# The misplaced process, there before the agent: 32 MiB touched on node 1 (node's own heap and
# code too), its threads bound to node 0 (--pin keeps both; the agent runs with --override-pins).
numactl --cpunodebind=0 --membind=1 node ${guestHelper('agent_workload.mjs')} 32 --pin > /run/workload.out &
w=$!
for i in $(seq 240); do grep -q ready /run/workload.out && break; sleep 0.5; done
echo "workload=$w"
echo "pages_before: $(pages $w)"
n0() { pages $w | cut -d' ' -f1 | cut -d= -f2; }
b0=$(n0)
t0=$(date +%s)
if ! systemctl start ${UNIT}; then
  systemctl status --no-pager ${UNIT} || true
  journalctl -b --no-pager -o cat -u ${UNIT} || true
  # A system call the filter refused: the kernel logs its number (audit type=1326).
  dmesg | grep -E 'type=1326' || true
  exit 1
fi
echo "start_s=$(($(date +%s) - t0))"
systemctl show -p ActiveState,SubState,NRestarts,Type,StatusText,MainPID ${UNIT} | sed 's/^/started_/'
main=$(systemctl show -p MainPID --value ${UNIT})
grep -E '^(CapBnd|CapEff|NoNewPrivs|Seccomp):' /proc/$main/status
echo "balancing_running=$(cat /proc/sys/kernel/numa_balancing)"
# Until 4 MiB of it are on node 0 (all of it on a fast host): under TCG a page move costs
# milliseconds (a TLB shootdown to a busy vCPU), and a loaded host would not see the whole move
# in the test's time. systemctl stop then comes in the middle of the move.
for i in $(seq 120); do
  now=$(n0)
  echo "progress: $(($(date +%s) - t0)) s N0=$now"
  [ $((now - b0)) -ge 1024 ] && break
  sleep 2
done
# At least one watchdog ping after READY=1 (every 15 s): WatchdogTimestamp moves past ActiveEnter.
while [ $(($(date +%s) - t0)) -lt 20 ]; do sleep 1; done
echo "move_s=$(($(date +%s) - t0))"
echo "pages_after: $(pages $w)"
systemctl show -p ActiveState,SubState,NRestarts,WatchdogTimestampMonotonic,ActiveEnterTimestampMonotonic ${UNIT} | sed 's/^/moved_/'
t1=$(date +%s)
systemctl stop ${UNIT}
echo "stop_s=$(($(date +%s) - t1))"
kill $w
systemctl show -p ActiveState,Result,ExecMainStatus,NRestarts ${UNIT} | sed 's/^/stopped_/'
echo "balancing_after=$(cat /proc/sys/kernel/numa_balancing)"
echo "--- journal"
journalctl -b --no-pager -o cat -u ${UNIT}`,
  // The exporter's unit, as shipped, started the same way: it serves /metrics on loopback.
  exporter: `set -eu
install -m 0644 contrib/numakit-exporter.service /etc/systemd/system/
systemctl daemon-reload
systemctl start numakit-exporter.service
for i in $(seq 60); do curl -sf http://127.0.0.1:10464/metrics > /run/metrics.txt && break; sleep 1; done
systemctl show -p ActiveState,NRestarts numakit-exporter.service
echo "series=$(grep -c '^node_memory_numa_MemTotal{' /run/metrics.txt)"
systemctl stop numakit-exporter.service`,
  // Online: the manager's view of the loaded unit (--offline=yes is what the unit test runs).
  security: `systemd-analyze security --no-pager ${UNIT}`,
};

/** KEY=VALUE lines of a section's output. */
function values(out: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const line of out.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0 && /^[A-Za-z_]+$/.test(line.slice(0, eq))) m.set(line.slice(0, eq), line.slice(eq + 1));
  }
  return m;
}

function pages(out: string, when: 'before' | 'after'): { n0: number; n1: number } {
  const m = new RegExp(`^pages_${when}: N0=(\\d+) N1=(\\d+)$`, 'm').exec(out);
  assert.ok(m, `no pages_${when} line:\n${out}`);
  return { n0: Number(m[1]), n1: Number(m[2]) };
}

describe('the shipped agent unit under systemd (2node guest, systemd as PID 1)', () => {
  let run: SectionsRun;
  before(async () => {
    run = await runSections(TWO_NODE, SECTIONS, { init: 'systemd', timeoutMs: 900_000 });
  });
  after(() => run?.cleanup());

  it('systemctl start: the unit as shipped, active once the agent sent READY=1, in its sandbox', (t) => {
    const out = sectionOk(run, 'unit').stdout;
    const v = values(out);
    t.diagnostic(`systemctl start took ${v.get('start_s')} s; status: ${v.get('started_StatusText')}`);
    assert.equal(v.get('unit'), 'as-shipped', out);
    assert.equal(v.get('started_Type'), 'notify', out);
    // Right after start returned: a notify unit is active only once READY=1 came.
    assert.equal(v.get('started_ActiveState'), 'active', out);
    assert.equal(v.get('started_SubState'), 'running', out);
    assert.ok((v.get('started_StatusText') ?? '') !== '', `no STATUS= from the agent:\n${out}`);
    // CAP_NET_ADMIN (12), CAP_SYS_PTRACE (19), CAP_SYS_ADMIN (21), CAP_SYS_NICE (23) and nothing else.
    assert.match(out, /^CapBnd:\s+0000000000a81000$/m, out);
    assert.match(out, /^NoNewPrivs:\s+1$/m, out);
    assert.match(out, /^Seccomp:\s+2$/m, out);
  });

  it('moves the misplaced process toward its threads (node 0), pings the watchdog, no restart', (t) => {
    const out = sectionOk(run, 'unit').stdout;
    const v = values(out);
    const before = pages(out, 'before');
    const after = pages(out, 'after');
    t.diagnostic(
      `pages before N0=${before.n0} N1=${before.n1}, after N0=${after.n0} N1=${after.n1} (${v.get('move_s')} s)`,
    );
    assert.ok(before.n1 >= 32 * 256, `its memory was not on node 1 to begin with:\n${out}`);
    // What the agent did (moved, or stopped by the SIGTERM of systemctl stop in the middle of it).
    const w = v.get('workload');
    const line = new RegExp(`^\\S+ (moved|stopped) pid ${w} \\(node\\): .* from node 1 to 0 \\(tune pages\\)`, 'm');
    assert.match(out, line, `the agent logged no move of pid ${w}`);
    for (const l of out.split('\n').filter((x) => line.test(x) || x.startsWith('progress: '))) t.diagnostic(l);
    assert.ok(after.n0 - before.n0 >= 1024, `not even 4 MiB of it reached node 0:\n${out}`);
    assert.doesNotMatch(out, /EPERM|EACCES|Operation not permitted/, out);
    // The unit grants what the watch needs (CAP_NET_ADMIN, AF_NETLINK): it is on, not fallen back to the passes.
    assert.doesNotMatch(out, /the watch between passes is off/, out);
    assert.equal(v.get('moved_ActiveState'), 'active', out);
    assert.equal(v.get('moved_NRestarts'), '0', out);
    const ping = Number(v.get('moved_WatchdogTimestampMonotonic'));
    assert.ok(ping > Number(v.get('moved_ActiveEnterTimestampMonotonic')), `no WATCHDOG=1 after READY=1:\n${out}`);
  });

  it('systemctl stop: stopped cleanly and kernel.numa_balancing back as it was', () => {
    const out = sectionOk(run, 'unit').stdout;
    const v = values(out);
    assert.equal(
      v.get('balancing_running'),
      '0',
      `the agent (--numa-balancing off) did not turn AutoNUMA off:\n${out}`,
    );
    assert.equal(v.get('stopped_ActiveState'), 'inactive', out);
    assert.equal(v.get('stopped_Result'), 'success', out);
    assert.equal(v.get('stopped_NRestarts'), '0', out);
    assert.equal(v.get('balancing_after'), v.get('balancing_before'), out);
  });

  it('the exporter unit as shipped: active, /metrics served with a series per node', () => {
    const out = sectionOk(run, 'exporter').stdout;
    const v = values(out);
    assert.equal(v.get('ActiveState'), 'active', out);
    assert.equal(v.get('NRestarts'), '0', out);
    assert.equal(v.get('series'), '2', out);
  });

  it('systemd-analyze security in the guest', (t) => {
    const out = sectionOk(run, 'security').stdout;
    const score = /Overall exposure level for \S+: (\d+\.\d+)/.exec(out);
    assert.ok(score, out);
    for (const l of out.trimEnd().split('\n')) t.diagnostic(l);
    assert.ok(Number(score[1]) <= 3.0, out);
  });
});
