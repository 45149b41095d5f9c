// Plans as deployed: each workload's plan made in a guest whose PID 1 is systemd, installed by
// PLAN.md's own install block, started by its start block, run by the real server from Debian
// (postgresql, mariadb-server, redis-server, OpenJDK; .ci/run installs them and keeps them from
// starting on the host), then observed from /proc: every thread's Cpus_allowed_list, the memory
// policy and pages per node of its anonymous memory (numa_maps), the setting live. PLAN.md's check
// block must succeed, its rollback block leave /etc/systemd/system and the servers' configuration
// as before. One boot per topology, the servers in sequence: 2node-plans for postgres, MariaDB,
// redis per node, jvm and spark-standalone; 4node-asym-plans for redis --per-l3 and a service per
// node. The same guests carry topo.lab.test.ts's checks of their topologies (topo_checks.ts), first,
// while nothing else runs. The two guests run at once (docs/lab.md has the times); run it alone with
// `node --import tsx --test test/lab/plans.lab.test.ts` (LAB_PLANS=a,b for some sections,
// LAB_KEEP=1 to keep what the guests wrote).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { formatCpuList, parseCpuList } from '../../src/model/cpuset.js';
import { sectionOk } from './assert.js';
import { guestHelper, NUMAKIT } from './numakit.js';
import { runSections, type SectionsRun } from './sections.js';
import { REPO_ROOT } from './setup.js';
import { topoChecks, TOPO_SECTIONS } from './topo_checks.js';
import { FOUR_NODE_PLANS, TWO_NODE_PLANS } from './topologies.js';

const JAVA_HOME = '/usr/lib/jvm/java-17-openjdk-amd64';
const work = mkdtempSync(join(tmpdir(), 'numakit-lab-plans-'));
const JAR = join(work, 'touch.jar');

/** A plan to make in the guest: its section's name and numakit plan's arguments. */
interface Plan {
  readonly name: string;
  readonly args: string;
  /** The section that reads it, when not the one of its name. */
  readonly for?: string;
}

/**
 * The guest's preparation, the "Before you start" of a real host: users, the Spark stand-in; then
 * every plan of the guest made at once, in the background, each on the host as prepared (a
 * Node.js start costs seconds under TCG: together they use the guest's idle vCPUs while the
 * first server starts). A section waits for its plan's /run/plan-NAME.rc.
 */
const setup = (plans: readonly Plan[]) => `set -eu
. ${guestHelper('plans.sh')}
# Generators run at every daemon-reload (seconds each under TCG); the lab guest needs none but
# postgresql-common's, which makes postgresql.service start the clusters.
mkdir -p /etc/systemd/system-generators
for g in /lib/systemd/system-generators/*; do
  [ "\${g##*/}" = postgresql-generator ] || ln -sf /dev/null "/etc/systemd/system-generators/\${g##*/}"
done
# The host masks the packages' units so its own systemd never starts them; this overlay is the
# guest's. Without a reload of its own (seconds under TCG): the install block of every plan that
# starts one ends with a daemon-reload.
systemctl unmask --no-reload postgresql.service mariadb.service redis-server.service
# What systemd-tmpfiles-setup does at boot on a host (the lab guest masks it): /run/mysqld.
systemd-tmpfiles --create mariadb.conf postgresql-common.conf
id app >/dev/null 2>&1 || useradd --system --no-create-home app
id spark >/dev/null 2>&1 || useradd --system --no-create-home spark
# The JVMs the units start compile with C1 only (C2 costs seconds of CPU under TCG); a flag of
# the launcher's environment, so the plans' own flags stay as written in their units.
systemctl set-environment JDK_JAVA_OPTIONS=-XX:TieredStopAtLevel=1
# Spark is not in Debian: bin/spark-class stands in for it, running the class's JVM as spark-class
# does, "$JAVA_HOME/bin/java" (the plan's numactl wrapper) with the daemon heap.
mkdir -p /opt/spark/bin /opt/spark/conf
# Its own flags after the heap start a JVM faster under emulation (the serial collector, the
# JDK's class data archive); they are the stand-in's, not the plan's.
cat > /opt/spark/bin/spark-class <<'SH'
#!/bin/bash
exec "$JAVA_HOME/bin/java" -Xmx"\${SPARK_DAEMON_MEMORY:-1g}" -XX:+UseSerialGC -Xshare:auto -jar ${JAR} 48
SH
chmod 755 /opt/spark/bin/spark-class
# What every section's roll back must leave as it finds it.
host_state >/run/plans-host-before
${plans.map((p) => `(${NUMAKIT} plan ${p.args} --out /run/plans/${p.name} >/run/plan-${p.name}.out 2>&1; echo $? >/run/plan-${p.name}.rc) &`).join('\n')}
at setup
echo setup=ok`;

/**
 * One workload: its plan (made by setup), install, start, wait until it answers, warm, observe,
 * check, roll back.
 * `ready`, `warm` and `setting` are shell functions of the unit ($1) and its port ($2, the
 * instance name of a template unit); `after` runs once the roll back is done, `last` at the very
 * end. Every process costs about a second under TCG on a busy host, so the section starts few:
 * one systemctl for what several units are, bash builtins for the rest.
 */
function section(
  name: string,
  o: { ready: string; warm?: string; setting?: string; after?: string; last?: string },
): string {
  return `set -u
. ${guestHelper('plans.sh')}
ready() ( ${o.ready} )
warm() ( ${o.warm ?? ':'} )
setting() ( ${o.setting ?? ':'} )
d=/run/plans/${name}
at begin
wait_for plan 600 test -s /run/plan-${name}.rc
echo "plan_rc=$(</run/plan-${name}.rc)"
[ -f $d/PLAN.md ] || { cat /run/plan-${name}.out; exit 1; }
mkdir -p "$LAB_OUT/${name}" && cp -r $d/. "$LAB_OUT/${name}/"
cd $d
at planned
run_block install
units=
for u in $(block start | sed -En 's/^systemctl (enable|restart) //p'); do case $u in --* | numakit-hugepages) ;; *) units="$units $u" ;; esac; done
ports=$(sed -n 's/^port //p' etc/redis/numa/*.conf 2>/dev/null)
run_block start
at started
# A unit that did not start: its journal, and no wait for it to answer.
failed=
for u in $units; do read -r state; [ "$state" != failed ] || failed="$failed $u"; done <<<"$(systemctl is-failed $units 2>/dev/null)"
for u in $failed; do journalctl -b --no-pager -o cat -u "$u" | tail -n 15 | sed "s/^/journal_$u: /"; done
for u in $units; do case "$failed " in *" $u "*) continue ;; esac; wait_for "ready_$u" 150 ready "$u" "\${u##*@}"; done
at ready
${
  o.warm === undefined
    ? ''
    : `for u in $units; do rc=0; warm "$u" "\${u##*@}" >/dev/null 2>/run/warm.err || rc=$?; echo "warm_$u=$rc"; [ $rc = 0 ] || tail -n 2 /run/warm.err | sed "s/^/warm_err_$u: /"; done`
}
at warmed
sleep 1
observe $units
${o.setting === undefined ? '' : `for u in $units; do v=$(setting "$u" "\${u##*@}" 2>/dev/null); echo "setting_$u=\${v##*$'\\n'}"; done`}
echo "ports=\${ports//$'\\n'/ }"
at observed
cd $d && run_block check
at checked
cd $d && run_block rollback
${o.after ?? ''}
at rolledback
after_state $units
host_same
${o.last ?? ''}`;
}

const PG = "cd / && runuser -u postgres -- psql -XAtc 'SHOW shared_buffers'";
const MY = "mysql -Nse 'SELECT @@innodb_buffer_pool_size'";
/** 8 MB of values written by the server itself: one client, not a pipe of 20000 commands. */
const REDIS_WARM = `redis-cli -p "$2" eval "for i = 1, 20000 do redis.call('SET', 'k' .. i, string.rep('x', 400)) end return redis.call('DBSIZE')" 0 | grep -qx 20000`;
/** A database back on its defaults stops once checked: an idle server still wakes the guest's CPUs. */
const STOP = 'systemctl stop --no-block $units';
const JOURNAL_TOUCHED = 'journalctl -u "$1" -o cat --no-pager | grep -q "^touched "';

const TWO_NODE_PLANS_MADE: readonly Plan[] = [
  { name: 'postgres', args: 'postgres --buffer-pool 256m' },
  { name: 'mysql', args: 'mysql --server mariadb --buffer-pool 256m' },
  { name: 'redis', args: 'redis' },
  { name: 'jvm', args: `jvm --heap 256m --jar ${JAR} --java-home ${JAVA_HOME}` },
  { name: 'spark', args: `spark-standalone --java-home ${JAVA_HOME}` },
];

const TWO_NODE_SECTIONS = {
  postgres: section('postgres', {
    ready: 'pg_isready -q',
    warm: `cd / && runuser -u postgres -- psql -Xqc "CREATE TABLE warm AS SELECT g, repeat('x', 400) AS pad FROM generate_series(1, 30000) g" -c 'SELECT count(*) FROM warm' -c 'DROP TABLE warm'`,
    setting: PG,
    after: 'wait_for restarted 120 pg_isready -q; echo "setting_after=$(setting)"',
    last: STOP,
  }),
  mysql: section('mysql', {
    ready: 'mariadb-admin ping',
    warm: 'mysql -e \'CREATE DATABASE IF NOT EXISTS warm; USE warm; CREATE TABLE t (id INT PRIMARY KEY, pad CHAR(200)) ENGINE=InnoDB; INSERT INTO t SELECT seq, REPEAT("x", 200) FROM seq_1_to_30000; SELECT COUNT(*) FROM t; DROP DATABASE warm\'',
    setting: MY,
    after: 'wait_for restarted 120 mariadb-admin ping; echo "setting_after=$(setting)"',
    last: STOP,
  }),
  redis: section('redis', {
    ready: 'redis-cli -p "$2" ping | grep -qx PONG',
    warm: REDIS_WARM,
    setting: 'redis-cli -p "$2" config get maxmemory',
  }),
  jvm: section('jvm', {
    ready: JOURNAL_TOUCHED,
    setting: `tr '\\0' '\\n' < /proc/$(systemctl show -p MainPID --value "$1")/cmdline | grep -E '^-X(mx|ms)|^-XX:\\+(UseNUMA|AlwaysPreTouch)$' | sort | paste -sd' '`,
  }),
  spark: section('spark', {
    ready: JOURNAL_TOUCHED,
    // The JVM the wrapper's numactl exec'd: the real java, with the worker's SPARK_DAEMON_MEMORY.
    setting: `tr '\\0' '\\n' < /proc/$(systemctl show -p MainPID --value "$1")/cmdline | head -n 2 | paste -sd' '`,
  }),
};

/**
 * On 4node-asym every node has its own L3, so --per-l3 deploys what per node would (one instance
 * per node): the per-node plan is made too and compared with it (hostside) rather than deployed
 * again; the 2-node guest deploys redis per node.
 */
const FOUR_NODE_PLANS_MADE: readonly Plan[] = [
  { name: 'redis-l3', args: 'redis --per-l3 --base-port 7379' },
  { name: 'redis-node', args: 'redis', for: 'redis-l3' },
  // Any program as a template unit per node: one with no port, so the same command line runs once
  // per node (--exec takes plain words), holding 8 MiB of touched heap; a JVM takes tens of seconds
  // under TCG (the jvm and spark sections have those).
  {
    name: 'service',
    args: `service --name hold --exec '/bin/bash ${join(REPO_ROOT, 'test/lab/guest-helpers/hold_memory.sh')} 8' --per-node`,
  },
];

const FOUR_NODE_SECTIONS = {
  'redis-l3': section('redis-l3', {
    ready: 'redis-cli -p "$2" ping | grep -qx PONG',
    warm: REDIS_WARM,
    setting: 'redis-cli -p "$2" config get maxmemory',
    after: 'echo "per_node_rc=$(</run/plan-redis-node.rc)"; cp -r /run/plans/redis-node "$LAB_OUT/redis-node"',
  }),
  service: section('service', {
    ready: JOURNAL_TOUCHED,
    setting: 'systemctl show -p MemoryMax --value "$1"',
  }),
};

/** LAB_PLANS=a,b runs only those sections (setup always; topo for the topo checks). */
const wanted = (name: string) => process.env['LAB_PLANS']?.split(',').includes(name) ?? true;

/** A guest's sections in order: the topo checks on a quiet guest, setup (which makes the plans), the workloads. */
function guestSections(plans: readonly Plan[], workloads: Record<string, string>): Record<string, string> {
  return {
    ...(wanted('topo') ? TOPO_SECTIONS : {}),
    setup: setup(plans.filter((p) => wanted(p.for ?? p.name))),
    ...Object.fromEntries(Object.entries(workloads).filter(([k]) => wanted(k))),
  };
}

interface Observed {
  unit: string;
  threads: number;
  cpus: string;
  policy: string;
  pages: Map<number, number>;
}

function observed(out: string): Observed[] {
  return [...out.matchAll(/^unit=(\S+) threads=(\d+) cpus=(.*) policy=(\S*) pages=(.*)$/gm)].map((m) => ({
    unit: m[1]!,
    threads: Number(m[2]),
    cpus: m[3]!,
    policy: m[4]!,
    pages: new Map([...m[5]!.matchAll(/N(\d+)=(\d+)/g)].map((x) => [Number(x[1]), Number(x[2])])),
  }));
}

const value = (out: string, key: string) => new RegExp(`^${key.replace(/[.@*]/g, '\\$&')}=(.*)$`, 'm').exec(out)?.[1];

/** What the plan's files promise a unit: its CPUs, memory policy and nodes. */
function promised(dir: string, unit: string): { cpus: string; policy: string; nodes: number[] } {
  const sys = join(dir, 'etc/systemd/system');
  const texts: string[] = [];
  const read = (p: string) => existsSync(p) && texts.push(readFileSync(p, 'utf8'));
  read(join(sys, `${unit}.service`));
  if (unit.includes('@')) read(join(sys, `${unit.split('@')[0]}@.service`));
  const dropins = join(sys, `${unit}.service.d`);
  if (existsSync(dropins)) for (const f of readdirSync(dropins)) read(join(dropins, f));
  const t = texts.join('\n');
  const cpus =
    /^CPUAffinity=(\S+)$/m.exec(t)?.[1] ?? /taskset -c (\S+)/.exec(t)?.[1] ?? /SPARK_CPU_LIST=(\S+)/.exec(t)?.[1];
  const mask =
    /^NUMAMask=(\S+)$/m.exec(t)?.[1] ?? /--membind=(\d\S*)/.exec(t)?.[1] ?? /SPARK_NUMA_NODE=(\d+)/.exec(t)?.[1];
  const policy = /^NUMAPolicy=(\w+)$/m.exec(t)?.[1] ?? 'bind';
  assert.ok(cpus !== undefined && mask !== undefined, `no CPUs or nodes for ${unit} in ${dir}:\n${t}`);
  return { cpus: formatCpuList(parseCpuList(cpus)), policy, nodes: parseCpuList(mask) };
}

/** The table row of one workload, asserted as it is built. */
function verify(run: SectionsRun, name: string, settings: (unit: string, port: string) => string | RegExp): string[] {
  const out = sectionOk(run, name).stdout;
  const dir = join(run.outDir, name);
  assert.equal(value(out, 'plan_rc'), '0', out);
  assert.equal(value(out, 'install_rc'), '0', out);
  assert.equal(value(out, 'start_rc'), '0', out);
  const rows: string[] = [];
  const obs = observed(out);
  assert.ok(obs.length > 0, `no unit observed:\n${out}`);
  for (const o of obs) {
    const ready = value(out, `ready_${o.unit}_s`);
    assert.ok(ready !== undefined && ready !== 'timeout', `${o.unit} never answered:\n${out}`);
    const warm = value(out, `warm_${o.unit}`);
    assert.ok(warm === undefined || warm === '0', `${o.unit}: the warm-up failed:\n${out}`);
    const p = promised(dir, o.unit);
    assert.equal(o.cpus, p.cpus, `${o.unit}: Cpus_allowed_list of its ${o.threads} threads`);
    const word = `${p.policy === 'preferred' ? 'prefer' : p.policy}:${formatCpuList(p.nodes)}`;
    assert.equal(o.policy, word, `${o.unit}: memory policy of its anonymous mappings`);
    const total = [...o.pages.values()].reduce((a, b) => a + b, 0);
    const on = p.nodes.reduce((a, n) => a + (o.pages.get(n) ?? 0), 0);
    if (p.policy === 'bind') assert.ok(on >= 0.98 * total, `${o.unit}: ${on} of ${total} pages on nodes ${p.nodes}`);
    if (p.policy === 'preferred') assert.ok(on >= 0.9 * total, `${o.unit}: ${on} of ${total} pages on node ${p.nodes}`);
    const port = o.unit.split('@')[1] ?? '';
    const live = value(out, `setting_${o.unit}`) ?? '';
    const want = settings(o.unit, port);
    if (typeof want === 'string') assert.equal(live, want, `${o.unit}: setting live`);
    else assert.match(live, want, `${o.unit}: setting live`);
    const pages = [...o.pages].map(([n, v]) => `N${n}=${Math.round((v * 4) / 1024)}M`).join(' ');
    rows.push(
      `| ${name} | ${o.unit} | ready ${ready} s | ${o.threads} threads on ${o.cpus} | ${o.policy}, ${pages} (${Math.round((100 * on) / Math.max(1, total))}% planned) | ${live} | check ${value(out, 'check_rc')} | rollback ${value(out, 'rollback_rc')}, ${value(out, `after_${o.unit}`)}, host ${value(out, 'host_same')} |`,
    );
  }
  assert.equal(value(out, 'check_rc'), '0', `PLAN.md's check block failed:\n${out}`);
  assert.equal(value(out, 'rollback_rc'), '0', out);
  assert.equal(value(out, 'host_same'), 'yes', `units, drop-ins or configuration left behind:\n${out}`);
  // A database's own unit runs again on its packaged settings; the units a plan made are gone.
  for (const o of obs)
    assert.match(
      value(out, `after_${o.unit}`) ?? '',
      /^(postgresql|mariadb)/.test(o.unit) ? /\/active$/ : /^[a-z-]*\/(inactive|failed|)$/,
      `${o.unit} after the roll back:\n${out}`,
    );
  return rows;
}

function conf(dir: string, path: string, re: RegExp): string {
  const m = re.exec(readFileSync(join(dir, path), 'utf8'));
  assert.ok(m, `${path}: ${re}`);
  return m[1]!;
}

const table: string[] = [];

describe('plans as deployed (2node-plans and 4node-asym-plans guests, systemd as PID 1, the real servers)', () => {
  let two: SectionsRun;
  let four: SectionsRun;
  const started = Date.now();
  before(async () => {
    execFileSync('java', [join(import.meta.dirname, 'guest-helpers', 'Touch.java'), '--jar', JAR], { cwd: work });
    chmodSync(work, 0o755);
    chmodSync(JAR, 0o644);
    // The two guests at once: most of a guest's time is waiting (boot, servers and JVMs starting).
    [two, four] = await Promise.all([
      runSections(TWO_NODE_PLANS, guestSections(TWO_NODE_PLANS_MADE, TWO_NODE_SECTIONS), {
        init: 'systemd',
        timeoutMs: 2_400_000,
      }),
      runSections(FOUR_NODE_PLANS, guestSections(FOUR_NODE_PLANS_MADE, FOUR_NODE_SECTIONS), {
        init: 'systemd',
        timeoutMs: 1_800_000,
      }),
    ]);
  });
  after(() => {
    if (process.env['LAB_KEEP']) {
      console.log('KEEP', two?.outDir, four?.outDir);
      return;
    }
    two?.cleanup();
    four?.cleanup();
    rmSync(work, { recursive: true, force: true });
  });

  it('setup', () => {
    assert.match(sectionOk(two, 'setup').stdout, /^at_setup=/m);
    assert.match(sectionOk(four, 'setup').stdout, /^at_setup=/m);
  });

  it('postgres: shared_buffers live, the server bound as planned, back on its defaults after the roll back', () => {
    const dir = join(two.outDir, 'postgres');
    const want = conf(
      dir,
      readdirSync(join(dir, 'etc/postgresql/15/main/conf.d')).map((f) => `etc/postgresql/15/main/conf.d/${f}`)[0]!,
      /^shared_buffers = (\S+)$/m,
    );
    assert.equal(want, '256MB');
    table.push(...verify(two, 'postgres', () => want));
    assert.equal(value(sectionOk(two, 'postgres').stdout, 'setting_after'), '128MB');
  });

  it('mysql (MariaDB): innodb_buffer_pool_size live, bound as planned, back on its defaults', () => {
    table.push(...verify(two, 'mysql', () => `${256 * 1024 * 1024}`));
    assert.equal(value(sectionOk(two, 'mysql').stdout, 'setting_after'), `${128 * 1024 * 1024}`);
  });

  it('redis: one instance per node, maxmemory live on every planned port', () => {
    const dir = join(two.outDir, 'redis');
    table.push(
      ...verify(
        two,
        'redis',
        (_u, p) => `${Number(conf(dir, `etc/redis/numa/${p}.conf`, /^maxmemory (\d+)mb$/m)) * 1024 * 1024}`,
      ),
    );
  });

  it('jvm: one JVM per node, its heap touched on its node, the flags live', () => {
    table.push(...verify(two, 'jvm', () => /^-XX:\+AlwaysPreTouch -XX:\+UseNUMA -Xms256m -Xmx256m$/));
  });

  it("spark-standalone: the workers' JVMs run through the numactl java wrapper on their node", () => {
    table.push(...verify(two, 'spark', () => `${JAVA_HOME}/bin/java -Xmx1g`));
  });

  it('4node-asym: redis --per-l3 (one L3 per node: the per-node plan is the same), a service per node', () => {
    const l3 = join(four.outDir, 'redis-l3');
    const maxmemory = (dir: string, p: string) =>
      `${Number(conf(dir, `etc/redis/numa/${p}.conf`, /^maxmemory (\d+)mb$/m)) * 1024 * 1024}`;
    table.push(...verify(four, 'redis-l3', (_u, p) => maxmemory(l3, p)));
    const out = sectionOk(four, 'redis-l3').stdout;
    assert.equal(value(out, 'per_node_rc'), '0', out);
    const perNode = join(four.outDir, 'redis-node');
    for (let i = 0; i < 4; i++) {
      assert.deepEqual(promised(perNode, `redis-numa@${6379 + i}`), promised(l3, `redis-numa@${7379 + i}`));
      assert.equal(maxmemory(perNode, `${6379 + i}`), maxmemory(l3, `${7379 + i}`));
    }
    const svc = join(four.outDir, 'service/etc/systemd/system');
    table.push(
      ...verify(four, 'service', (u) => {
        const d = join(svc, `${u}.service.d`);
        const mib = readdirSync(d)
          .map((f) => /^MemoryMax=(\d+)M$/m.exec(readFileSync(join(d, f), 'utf8'))?.[1])
          .find((m) => m !== undefined);
        assert.ok(mib !== undefined, `no MemoryMax for ${u} in ${d}`);
        return `${Number(mib) * 1024 * 1024}`;
      }),
    );
  });

  describe('topo in the 2node-plans guest', { skip: !wanted('topo') }, () => topoChecks(TWO_NODE_PLANS, () => two));
  describe('topo in the 4node-asym-plans guest', { skip: !wanted('topo') }, () =>
    topoChecks(FOUR_NODE_PLANS, () => four),
  );

  it('the table: workload x (started, CPUs, memory policy and pages per node, settings live, check after, rolled back)', (t) => {
    t.diagnostic(
      `guests: 2node ${two.guest.durationMs} ms, 4node ${four.guest.durationMs} ms, all ${Date.now() - started} ms`,
    );
    for (const r of table) t.diagnostic(r);
    assert.ok(table.length >= 13, table.join('\n'));
  });
});
