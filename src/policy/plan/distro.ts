// Which distribution a database plan writes for, and where its packages put things. A drop-in
// for the wrong unit is silently ignored (Debian's postgresql.service is a wrapper that runs
// nothing; the server is postgresql@VER-CLUSTER), so the plan reads /etc/os-release from the
// machine or snapshot, or takes --distro, and refuses to guess.
//   postgres  Debian/Ubuntu  postgresql@VER-CLUSTER, /etc/postgresql/VER/CLUSTER/conf.d/ (included by default)
//             RHEL family    postgresql (distribution packages), /var/lib/pgsql/data/conf.d/; or
//                            postgresql-VER (PGDG, --pg-version), /var/lib/pgsql/VER/data/conf.d/
//                            (postgresql.conf needs include_dir = 'conf.d': PLAN.md adds it)
//   mysql     Debian/Ubuntu  mysql, /etc/mysql/mysql.conf.d/, /usr/sbin/mysqld
//             RHEL family    mysqld, /etc/my.cnf.d/, /usr/libexec/mysqld
//   mariadb   Debian/Ubuntu  mariadb, /etc/mysql/mariadb.conf.d/, /usr/sbin/mariadbd
//             RHEL family    mariadb, /etc/my.cnf.d/, /usr/libexec/mariadbd
import { UsageError } from '../../model/errors.js';
import type { OsRelease } from '../../model/os_release.js';

export type DistroFamily = 'debian' | 'rhel';

export interface Distro {
  readonly family: DistroFamily;
  /** ID as in os-release or --distro (ubuntu, rocky ...). */
  readonly id: string;
  readonly versionId: string | null;
  /** How it was known: "etc/os-release: Ubuntu 22.04.4 LTS" or "--distro debian". */
  readonly from: string;
}

const FAMILIES: Readonly<Record<string, DistroFamily>> = {
  debian: 'debian',
  ubuntu: 'debian',
  rhel: 'rhel',
  centos: 'rhel',
  rocky: 'rhel',
  almalinux: 'rhel',
  ol: 'rhel',
  fedora: 'rhel',
  amzn: 'rhel',
};
export const DISTRO_NAMES = Object.keys(FAMILIES);

function familyOf(id: string, like: readonly string[]): DistroFamily | null {
  return FAMILIES[id] ?? like.map((l) => FAMILIES[l]).find((f) => f !== undefined) ?? null;
}

/** --distro wins; else the machine's os-release; else a usage error asking for --distro. */
export function resolveDistro(os: OsRelease | null, given: string | undefined, machineLabel: string): Distro {
  if (given !== undefined) {
    const family = FAMILIES[given];
    if (family === undefined) throw new UsageError(`--distro ${given}: one of ${DISTRO_NAMES.join(', ')}`);
    return { family, id: given, versionId: null, from: `--distro ${given}` };
  }
  if (os === null)
    throw new UsageError(
      `${machineLabel} has no etc/os-release to tell the distribution: give --distro (${DISTRO_NAMES.join(', ')}); the units and config paths of the database packages differ`,
    );
  const family = familyOf(os.id, os.idLike);
  if (family === null)
    throw new UsageError(
      `${os.path}: distribution '${os.id}' is not one numakit knows the database packages of: give --distro (${DISTRO_NAMES.join(', ')}) for the closest`,
    );
  return { family, id: os.id, versionId: os.versionId, from: `${os.path}: ${os.prettyName ?? os.id}` };
}

/** The PostgreSQL major version each release packages; null when unknown (then --pg-version is asked). */
const PG_DEFAULT: Readonly<Record<string, number>> = {
  'debian 11': 13,
  'debian 12': 15,
  'debian 13': 17,
  'ubuntu 20.04': 12,
  'ubuntu 22.04': 14,
  'ubuntu 24.04': 16,
};

export interface PostgresLayout {
  readonly unit: string;
  readonly confPath: string;
  /** postgresql.conf to add include_dir to, or null when the packages include conf.d already. */
  readonly includeFrom: string | null;
  readonly version: number | null;
  readonly why: string;
}

export function postgresLayout(d: Distro, version: number | undefined, cluster: string): PostgresLayout {
  if (d.family === 'debian') {
    const v = version ?? PG_DEFAULT[`${d.id} ${d.versionId}`] ?? null;
    if (v === null)
      throw new UsageError(
        `postgres on ${d.id}${d.versionId === null ? '' : ` ${d.versionId}`}: give --pg-version N (the cluster's major version: its unit is postgresql@N-${cluster})`,
      );
    return {
      unit: `postgresql@${v}-${cluster}`,
      confPath: `/etc/postgresql/${v}/${cluster}/conf.d/numakit-numa.conf`,
      includeFrom: null,
      version: v,
      why: `${d.from}: Debian's packages run each cluster as postgresql@VERSION-CLUSTER (postgresql.service only starts them) and include its conf.d${version === undefined ? `; PostgreSQL ${v} is this release's` : ''}`,
    };
  }
  const data = version === undefined ? '/var/lib/pgsql/data' : `/var/lib/pgsql/${version}/data`;
  return {
    unit: version === undefined ? 'postgresql' : `postgresql-${version}`,
    confPath: `${data}/conf.d/numakit-numa.conf`,
    includeFrom: `${data}/postgresql.conf`,
    version: version ?? null,
    why:
      version === undefined
        ? `${d.from}: the distribution's postgresql-server runs as postgresql.service with its data in /var/lib/pgsql/data (PGDG packages: give --pg-version)`
        : `${d.from}: PGDG's postgresql${version}-server runs as postgresql-${version}.service with its data in ${data}`,
  };
}

export type MysqlServer = 'mysql' | 'mariadb';

export interface MysqlLayout {
  readonly unit: string;
  readonly confPath: string;
  readonly exec: string;
  /** innodb_numa_interleave exists (MySQL 5.6.27+/5.7.9+; MariaDB removed it in 10.2.23/10.3.14/10.4.4: unknown to mariadbd, which would refuse to start). */
  readonly interleaveOption: boolean;
  readonly why: string;
}

export function mysqlLayout(d: Distro, server: MysqlServer): MysqlLayout {
  const deb = d.family === 'debian';
  if (server === 'mariadb') {
    return {
      unit: 'mariadb',
      confPath: deb ? '/etc/mysql/mariadb.conf.d/60-numakit-numa.cnf' : '/etc/my.cnf.d/numakit-numa.cnf',
      exec: deb ? '/usr/sbin/mariadbd' : '/usr/libexec/mariadbd',
      interleaveOption: false,
      why: `${d.from}: MariaDB runs as mariadb.service and reads ${deb ? '/etc/mysql/mariadb.conf.d/' : '/etc/my.cnf.d/'}; it has no innodb_numa_interleave (removed in 10.2.23/10.3.14/10.4.4), so the unit's NUMA policy does the interleaving`,
    };
  }
  return {
    unit: deb ? 'mysql' : 'mysqld',
    confPath: deb ? '/etc/mysql/mysql.conf.d/numakit-numa.cnf' : '/etc/my.cnf.d/numakit-numa.cnf',
    exec: deb ? '/usr/sbin/mysqld' : '/usr/libexec/mysqld',
    interleaveOption: true,
    why: `${d.from}: MySQL runs as ${deb ? 'mysql' : 'mysqld'}.service and reads ${deb ? '/etc/mysql/mysql.conf.d/' : '/etc/my.cnf.d/'}`,
  };
}
