// Plans that can work as written: each server gets the memory settings its huge pages, locked
// memory and open files need (MySQL/MariaDB and PostgreSQL huge pages: LimitMEMLOCK=infinity and
// vm.hugetlb_shm_group for its group; Elasticsearch: bootstrap.memory_lock with LimitMEMLOCK;
// Redis: overcommit, THP, open files; a JVM: no large pages it cannot have), and PLAN.md names
// the documentation each requirement comes from.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runMain } from '../../helpers/cli.js';

interface Plan {
  files: { path: string; content: string }[];
}

async function plan(...args: string[]): Promise<Map<string, string>> {
  const r = await runMain(['--example', 'spark-2s', 'plan', ...args, '--json']);
  assert.equal(r.code, 0, r.err);
  return new Map((JSON.parse(r.out) as Plan).files.map((f) => [f.path, f.content]));
}

/** The rows of PLAN.md's "What the server needs" table: [setting, why, source]. */
function needs(md: string): string[][] {
  const at = md.indexOf('## What the server needs, and where it is documented');
  if (at < 0) return [];
  const table = md.slice(at).split('\n\n')[1]!;
  return table
    .split('\n')
    .slice(2)
    .map((l) => l.slice(2, -2).split(' | '));
}

test('mysql --huge-pages: LimitMEMLOCK=infinity and vm.hugetlb_shm_group for the mysql group, from the MySQL manual', async () => {
  const f = await plan('mysql', '--buffer-pool', '48g', '--huge-pages');
  assert.match(f.get('/etc/systemd/system/mysql.service.d/50-numakit-numa.conf')!, /^LimitMEMLOCK=infinity$/m);
  const script = f.get('/usr/local/sbin/numakit-hugepages.sh')!;
  assert.match(script, /^gid=\$\(getent group mysql \| cut -d: -f3 \|\| true\)$/m);
  assert.match(script, /^sysctl -w vm\.hugetlb_shm_group="\$gid"$/m);
  assert.match(script, /no group mysql on this host[^\n]*\n\s+exit 1/);
  const rows = needs(f.get('PLAN.md')!);
  assert.deepEqual(
    rows.map((r) => r[0]!.split(' ')[0]),
    ['huge', 'LimitMEMLOCK=infinity', 'vm.hugetlb_shm_group'],
  );
  for (const r of rows)
    assert.match(r[2]!, /https:\/\/dev\.mysql\.com\/doc\/refman\/8\.4\/en\/large-page-support\.html/);
});

test('mariadb cites its own documentation too; without --huge-pages nothing is locked and nothing is cited', async () => {
  const m = await plan('mysql', '--server', 'mariadb', '--buffer-pool', '48g', '--huge-pages');
  assert.equal(needs(m.get('PLAN.md')!).length, 3);
  for (const r of needs(m.get('PLAN.md')!))
    assert.match(r[2]!, /https:\/\/mariadb\.com\/kb\/en\/server-system-variables\/#large_pages/);
  const plain = await plan('mysql', '--buffer-pool', '48g');
  assert.doesNotMatch(plain.get('/etc/systemd/system/mysql.service.d/50-numakit-numa.conf')!, /LimitMEMLOCK/);
  assert.deepEqual(needs(plain.get('PLAN.md')!), []);
});

test('postgres --huge-pages: huge_pages = on with LimitMEMLOCK and the postgres group, from the PostgreSQL manual', async () => {
  const f = await plan('postgres', '--buffer-pool', '16g', '--huge-pages');
  const dropIn = [...f].find(([p]) => /\.service\.d\/50-numakit-numa\.conf$/.test(p))!;
  assert.match(dropIn[1], /^LimitMEMLOCK=infinity$/m);
  assert.match(f.get('/usr/local/sbin/numakit-hugepages.sh')!, /getent group postgres /);
  const rows = needs(f.get('PLAN.md')!);
  assert.equal(rows.length, 3);
  for (const r of rows) assert.match(r[2]!, /postgresql\.org\/docs\/current\/kernel-resources\.html#LINUX-HUGE-PAGES/);
});

test('elasticsearch: bootstrap.memory_lock with LimitMEMLOCK=infinity, per node and interleaved', async () => {
  const f = await plan('elasticsearch', '--heap', '16g');
  assert.match(f.get('/etc/elasticsearch/node0/elasticsearch.yml')!, /^bootstrap\.memory_lock: true$/m);
  assert.match(f.get('/etc/systemd/system/elasticsearch-node0.service')!, /^LimitMEMLOCK=infinity$/m);
  const rows = needs(f.get('PLAN.md')!);
  assert.match(
    rows[0]![2]!,
    /elastic\.co\/guide\/en\/elasticsearch\/reference\/current\/setup-configuration-memory\.html/,
  );
  const big = await plan('elasticsearch', '--heap', '120g');
  assert.match(
    big.get('/etc/systemd/system/elasticsearch.service.d/50-numakit-numa.conf')!,
    /^LimitMEMLOCK=infinity$/m,
  );
  assert.match(big.get('PLAN.md')!, /Add `bootstrap\.memory_lock: true` to \/etc\/elasticsearch\/elasticsearch\.yml/);
});

test('redis and jvm: what they need (or do not use), with sources', async () => {
  const r = await plan('redis');
  const rows = needs(r.get('PLAN.md')!);
  assert.deepEqual(
    rows.map((x) => x[0]!.split(' ')[0]),
    ['vm.overcommit_memory', 'THP', 'LimitNOFILE=65535'],
  );
  for (const x of rows) assert.match(x[2]!, /https:\/\/redis\.io\/docs\//);
  assert.match(r.get('/etc/systemd/system/redis-numa@.service')!, /^LimitNOFILE=65535$/m);
  const j = await plan('jvm', '--heap', '16g', '--jar', '/opt/app.jar');
  assert.ok([...j.values()].every((c) => !/UseLargePages|UseTransparentHugePages/.test(c.replace(/^\|.*$/gm, ''))));
  assert.match(needs(j.get('PLAN.md')!)[0]![2]!, /oracle\.com\/java\/technologies\/javase\/largememory-pages\.html/);
});
