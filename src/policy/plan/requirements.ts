// What each server needs for the memory settings a plan gives it (huge pages, locked memory,
// open files), with the documentation that says so: one place, read by the planners' files and
// PLAN.md's "What the server needs" table. A plan that reserves huge pages the server cannot map
// (mysqld without an unlimited memlock limit or the huge-page group falls back to normal pages,
// the reservation sits idle) does not work as written.

export interface Requirement {
  /** The setting as the plan writes it. */
  readonly setting: string;
  /** Why the server needs it. */
  readonly why: string;
  /** Where it is documented. */
  readonly source: string;
}

const MYSQL_DOC =
  'MySQL Reference Manual, Enabling Large Page Support (https://dev.mysql.com/doc/refman/8.4/en/large-page-support.html)';
const MARIADB_DOC =
  'MariaDB Server System Variables, large_pages (https://mariadb.com/kb/en/server-system-variables/#large_pages), which points to the same Linux setup';
const PG_DOC =
  'PostgreSQL documentation, Managing Kernel Resources: Linux Huge Pages (https://www.postgresql.org/docs/current/kernel-resources.html#LINUX-HUGE-PAGES)';
const ES_MEMLOCK_DOC =
  'Elasticsearch Reference, Disable swapping: bootstrap.memory_lock (https://www.elastic.co/guide/en/elasticsearch/reference/current/setup-configuration-memory.html) and Configuring system settings: systemd (https://www.elastic.co/guide/en/elasticsearch/reference/current/setting-system-settings.html#systemd)';
const ES_FILES_DOC =
  'Elasticsearch Reference, File descriptors (https://www.elastic.co/guide/en/elasticsearch/reference/current/file-descriptors.html)';
const REDIS_ADMIN_DOC = 'Redis administration (https://redis.io/docs/latest/operate/oss_and_stack/management/admin/)';
const REDIS_CLIENTS_DOC =
  'Redis client handling: maximum concurrent connected clients (https://redis.io/docs/latest/develop/reference/clients/)';
const JDK_LARGE_PAGES_DOC =
  'Oracle, Java Support for Large Memory Pages (https://www.oracle.com/java/technologies/javase/largememory-pages.html)';

/** The group the database server runs as (its packages' user and group). */
export function serverGroup(engine: 'mysql' | 'postgres'): string {
  return engine === 'mysql' ? 'mysql' : 'postgres';
}

/** mysql (or MariaDB) and postgres with --huge-pages; without it, nothing is reserved and nothing more is needed. */
export function dbRequirements(engine: 'mysql' | 'postgres', mariadb: boolean, hugePages: boolean): Requirement[] {
  if (!hugePages) return [];
  const doc = engine === 'postgres' ? PG_DOC : mariadb ? `${MARIADB_DOC}; ${MYSQL_DOC}` : MYSQL_DOC;
  const group = serverGroup(engine);
  return [
    {
      setting: "huge pages reserved on the server's node(s) before it starts (numakit-hugepages.service)",
      why: 'the server maps its buffer pool from the huge page pool; what is not reserved is not there',
      source: doc,
    },
    {
      setting: 'LimitMEMLOCK=infinity in the drop-in',
      why: 'huge pages are locked memory: under the default memlock limit the server cannot map them and silently falls back to normal pages, leaving the reservation idle',
      source: doc,
    },
    {
      setting: `vm.hugetlb_shm_group = the gid of group ${group} (set by numakit-hugepages.sh at boot)`,
      why: `only that group (or a process with CAP_IPC_LOCK) may create huge page shared memory; it is one group for the whole host`,
      source: doc,
    },
  ];
}

/** Elasticsearch instances. */
export function elasticsearchRequirements(): Requirement[] {
  return [
    {
      setting: 'bootstrap.memory_lock: true in elasticsearch.yml, with LimitMEMLOCK=infinity in the unit',
      why: 'the heap must never be swapped out; the lock needs an unlimited memlock limit, and the limit alone locks nothing',
      source: ES_MEMLOCK_DOC,
    },
    { setting: 'LimitNOFILE=65535', why: 'Elasticsearch needs at least 65535 open files', source: ES_FILES_DOC },
  ];
}

/** A plain JVM: the plan uses no large pages, and says what they would need. */
export function jvmRequirements(): Requirement[] {
  return [
    {
      setting: 'no -XX:+UseLargePages (none of its pages are reserved here)',
      why: 'on Linux it needs huge pages reserved (vm.nr_hugepages) before the JVM starts, or the JVM warns and uses normal pages; -XX:+UseTransparentHugePages needs THP enabled as madvise or always instead',
      source: JDK_LARGE_PAGES_DOC,
    },
  ];
}

/** Redis instances. */
export function redisRequirements(): Requirement[] {
  return [
    {
      setting: 'vm.overcommit_memory = 1 (Before you start)',
      why: 'a background save or rewrite forks; without overcommit the fork can fail under memory pressure',
      source: REDIS_ADMIN_DOC,
    },
    {
      setting: 'THP not "always" (the profile wants madvise or never)',
      why: 'transparent huge pages make the fork of a background save copy 2 MiB pages and add latency',
      source: REDIS_ADMIN_DOC,
    },
    {
      setting: 'LimitNOFILE=65535',
      why: 'Redis needs maxclients (10000 by default) + 32 file descriptors and lowers maxclients to what the limit allows',
      source: REDIS_CLIENTS_DOC,
    },
  ];
}
