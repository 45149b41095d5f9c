// Database plans write for the distribution's own units and config paths (src/policy/plan/
// distro.ts), detected from etc/os-release or --distro: each drop-in extends the unit that runs
// the server, checked by systemd-analyze verify against that packaged unit
// (test/fixtures/plan/units/), and the settings file goes where the packages read it.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { DbDecision } from '../../../src/policy/plan/db.js';
import { planWorkload } from '../../../src/policy/plan/index.js';
import { renderPlan } from '../../../src/render/plan/index.js';
import { parseOsRelease } from '../../../src/sysfs/os_release.js';
import { exampleMachine } from './machines.js';
import { needTools } from '../../helpers/tools.js';
import { checkUnits, isUnit, type PackagedUnit } from './validators.js';

const UNITS = new URL('../../fixtures/plan/units/', import.meta.url);
const packaged = (family: string): PackagedUnit[] =>
  readdirSync(new URL(`${family}/`, UNITS)).map((name) => ({
    name,
    content: readFileSync(new URL(`${family}/${name}`, UNITS), 'utf8'),
  }));

interface Case {
  readonly name: string;
  readonly workload: 'mysql' | 'postgres';
  readonly raw: Record<string, string>;
  readonly family: 'debian' | 'rhel';
  /** The unit that runs the server, and the file its packages read. */
  readonly unit: string;
  readonly conf: string;
}

const CASES: Case[] = [
  {
    name: 'postgres, Debian 12',
    workload: 'postgres',
    raw: { distro: 'debian', 'pg-version': '15' },
    family: 'debian',
    unit: 'postgresql@15-main.service',
    conf: '/etc/postgresql/15/main/conf.d/numakit-numa.conf',
  },
  {
    name: 'postgres, Ubuntu 22.04 from os-release (14), cluster "reports"',
    workload: 'postgres',
    raw: { 'pg-cluster': 'reports' },
    family: 'debian',
    unit: 'postgresql@14-reports.service',
    conf: '/etc/postgresql/14/reports/conf.d/numakit-numa.conf',
  },
  {
    name: 'postgres, RHEL family, distribution packages',
    workload: 'postgres',
    raw: { distro: 'rocky' },
    family: 'rhel',
    unit: 'postgresql.service',
    conf: '/var/lib/pgsql/data/conf.d/numakit-numa.conf',
  },
  {
    name: 'postgres, RHEL family, PGDG 16',
    workload: 'postgres',
    raw: { distro: 'rhel', 'pg-version': '16' },
    family: 'rhel',
    unit: 'postgresql-16.service',
    conf: '/var/lib/pgsql/16/data/conf.d/numakit-numa.conf',
  },
  {
    name: 'mysql, Ubuntu',
    workload: 'mysql',
    raw: {},
    family: 'debian',
    unit: 'mysql.service',
    conf: '/etc/mysql/mysql.conf.d/numakit-numa.cnf',
  },
  {
    name: 'mariadb, Debian',
    workload: 'mysql',
    raw: { distro: 'debian', server: 'mariadb' },
    family: 'debian',
    unit: 'mariadb.service',
    conf: '/etc/mysql/mariadb.conf.d/60-numakit-numa.cnf',
  },
  {
    name: 'mysql, RHEL family',
    workload: 'mysql',
    raw: { distro: 'almalinux' },
    family: 'rhel',
    unit: 'mysqld.service',
    conf: '/etc/my.cnf.d/numakit-numa.cnf',
  },
  {
    name: 'mariadb, RHEL family',
    workload: 'mysql',
    raw: { distro: 'rhel', server: 'mariadb' },
    family: 'rhel',
    unit: 'mariadb.service',
    conf: '/etc/my.cnf.d/numakit-numa.cnf',
  },
];

for (const c of CASES) {
  test(`${c.name}: the drop-in extends ${c.unit}, verified against the packaged unit; settings in ${c.conf}`, async (t) => {
    // spark-2s says Ubuntu 22.04 in its etc/os-release; --distro overrides it.
    for (const buffer of ['24g', '90g']) {
      const d = planWorkload(c.workload, exampleMachine('spark-2s'), { 'buffer-pool': buffer, ...c.raw }) as DbDecision;
      const files = await renderPlan(d);
      const dropIn = files.find((f) => /\.service\.d\/50-numakit-numa\.conf$/.test(f.path))!;
      assert.equal(dropIn.path, `/etc/systemd/system/${c.unit}.d/50-numakit-numa.conf`);
      assert.ok(
        files.some((f) => f.path === c.conf),
        `${c.conf} among ${files.map((f) => f.path).join(', ')}`,
      );
      const units = packaged(c.family);
      const base = c.unit.replace(/@[^.]+\.service$/, '@.service');
      assert.ok(
        units.some((u) => u.name === base),
        `${base} is a unit the ${c.family} packages install`,
      );
      if (!needTools(t, 'systemd-analyze')) return;
      assert.equal(checkUnits(files.filter(isUnit), units), '');
    }
  });
}

test("Debian's postgresql.service runs no server: a drop-in there would change nothing", () => {
  const wrapper = packaged('debian').find((u) => u.name === 'postgresql.service')!;
  assert.match(wrapper.content, /^ExecStart=\/bin\/true$/m);
});

test('MariaDB gets no innodb_numa_interleave (mariadbd refuses unknown options); MySQL does', async () => {
  const cnf = async (raw: Record<string, string>) =>
    (await renderPlan(planWorkload('mysql', exampleMachine('spark-2s'), { 'buffer-pool': '90g', ...raw }))).find((f) =>
      f.path.endsWith('.cnf'),
    )!.content;
  assert.doesNotMatch(await cnf({ server: 'mariadb' }), /innodb_numa_interleave/);
  assert.match(await cnf({}), /^innodb_numa_interleave = ON$/m);
});

test("RHEL's postgresql.conf is made to include conf.d, idempotently; the distribution is asked when the machine does not say", async () => {
  const md = (await renderPlan(planWorkload('postgres', exampleMachine('epyc-nps4'), { 'buffer-pool': '8g' }))).find(
    (f) => f.path === 'PLAN.md',
  )!.content;
  assert.match(
    md,
    /grep -qx "include_dir = 'conf\.d'" \/var\/lib\/pgsql\/data\/postgresql\.conf \|\| echo "include_dir = 'conf\.d'" >> \/var\/lib\/pgsql\/data\/postgresql\.conf/,
  );
  const bare = { ...exampleMachine('spark-2s'), os: null, label: 'snapshot x' };
  assert.throws(
    () => planWorkload('postgres', bare, { 'buffer-pool': '8g' }),
    /snapshot x has no etc\/os-release to tell the distribution: give --distro/,
  );
  assert.throws(
    () => planWorkload('postgres', bare, { 'buffer-pool': '8g', distro: 'gentoo' }),
    /--distro gentoo: one of debian, ubuntu, rhel/,
  );
  assert.throws(
    () => planWorkload('postgres', { ...bare, os: parseOsRelease('ID=debian\n') }, { 'buffer-pool': '8g' }),
    /give --pg-version N/,
  );
  assert.throws(
    () => planWorkload('redis', exampleMachine('spark-2s'), { distro: 'debian' }),
    /--distro does not apply/,
  );
});

test('os-release: quoted values, ID_LIKE, a missing ID is a parse error', () => {
  assert.deepEqual(
    parseOsRelease(
      'PRETTY_NAME="Rocky Linux 9.4 (Blue Onyx)"\nID="rocky"\nID_LIKE="rhel centos fedora"\nVERSION_ID="9.4"\n',
    ),
    {
      id: 'rocky',
      idLike: ['rhel', 'centos', 'fedora'],
      versionId: '9.4',
      prettyName: 'Rocky Linux 9.4 (Blue Onyx)',
      path: 'etc/os-release',
    },
  );
  assert.throws(() => parseOsRelease('NAME=x\n'), /no ID= line/);
});

test('a snapshot carries etc/os-release (a collector reads it), so plans from it know the distribution', async () => {
  const { SNAPSHOT_COLLECTORS } = await import('../../../src/discover/snapshot_collectors.js');
  const { EXAMPLES } = await import('./machines.js');
  const { openRoot } = await import('../../../src/sysfs/root.js');
  const read: string[] = [];
  const root = {
    ...openRoot(`${EXAMPLES}/epyc-nps4`, 'x'),
    onAccess: (_k: string, rel: string) => void read.push(rel),
  };
  for (const c of SNAPSHOT_COLLECTORS) await c.collect(root, { processes: false });
  assert.ok(read.includes('etc/os-release'));
});
