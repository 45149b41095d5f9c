// Files of a mysql/postgres plan: the systemd drop-in, the server settings, and huge pages.
import type { DbDecision } from '../../policy/plan/db.js';
import { dbRequirements, serverGroup } from '../../policy/plan/requirements.js';
import { activeCheck, policyCheck, sizeWord, threadsCheck, valueCheck } from './checks.js';
import { num } from '../../policy/plan/machine.js';
import type { PlanFile } from '../../policy/plan/types.js';
import { generatedBy, shellHeader } from './header.js';
import type { PlanDoc } from './plan_md.js';
import { numaEntries, numactlPrefix, renderUnit, type UnitEntry } from './systemd.js';
import { disableNow, enableNow } from './blocks.js';

function dropIn(d: DbDecision): PlanFile {
  const o = d.options;
  const entries: UnitEntry[] =
    o.systemdVersion >= 243
      ? numaEntries(d.policy, d.mask, d.cpuList)
      : [
          ['ExecStart', ''],
          ['ExecStart', `${numactlPrefix(d.policy, d.mask, d.cpuList)} ${o.exec!.join(' ')}`],
        ];
  // Huge pages are locked memory: under the default memlock limit the server cannot map them
  // and falls back to normal pages (requirements.ts names the documentation).
  if (o.hugePages) entries.push(['LimitMEMLOCK', 'infinity']);
  const content = renderUnit(
    [...generatedBy(o.engine, d.machine.label), `Memory policy ${d.policy} on node(s) ${d.mask}.`],
    [{ name: 'Service', entries }],
  );
  return {
    path: `/etc/systemd/system/${o.unit}.service.d/50-numakit-numa.conf`,
    content,
    mode: 0o644,
    about: `${d.policy} ${d.mask}${d.cpuList === null ? '' : `, CPUs ${d.cpuList}`}${o.hugePages ? ', LimitMEMLOCK=infinity' : ''} for ${o.unit}.service`,
  };
}

function serverConf(d: DbDecision): PlanFile {
  const o = d.options;
  const head = generatedBy(o.engine, d.machine.label).map((l) => `# ${l}`);
  if (o.engine === 'mysql') {
    // MariaDB has no innodb_numa_interleave (mariadbd refuses to start on an unknown option): the unit's NUMAPolicy= interleaves.
    const interleave = o.interleaveOption
      ? [`innodb_numa_interleave = ${d.policy === 'interleave' ? 'ON' : 'OFF'}`]
      : [];
    const lines = [
      ...head,
      '[mysqld]',
      `innodb_buffer_pool_size = ${sizeWord(d.poolGiB, 'G', 'M')}`,
      ...interleave,
      ...(o.hugePages ? ['large_pages = ON'] : []),
    ];
    return {
      path: o.confPath,
      content: `${lines.join('\n')}\n`,
      mode: 0o644,
      about: `buffer pool size${o.interleaveOption ? ', innodb_numa_interleave' : ''}${o.hugePages ? ', large pages' : ''} (read by ${o.unit})`,
    };
  }
  const lines = [
    ...head,
    `shared_buffers = ${sizeWord(d.poolGiB, 'GB', 'MB')}`,
    `huge_pages = ${o.hugePages ? 'on' : 'try'}`,
  ];
  return {
    path: o.confPath,
    content: `${lines.join('\n')}\n`,
    mode: 0o644,
    about: `shared_buffers and huge_pages (in the conf.d of ${o.unit})`,
  };
}

function hugePageFiles(d: DbDecision): PlanFile[] {
  if (d.hugePages.length === 0) return [];
  const label = d.machine.label;
  const group = serverGroup(d.options.engine);
  const script = `${shellHeader(d.options.engine, label, [
    'Reserves 2 MiB huge pages on the nodes the server uses, before it starts, and lets its group',
    'use them (vm.hugetlb_shm_group); PLAN.md names the documentation of both.',
  ])}
${d.hugePages.map((h) => `echo ${h.pages} > /sys/devices/system/node/node${h.node}/hugepages/hugepages-2048kB/nr_hugepages`).join('\n')}
grep -H . /sys/devices/system/node/node*/hugepages/hugepages-2048kB/nr_hugepages
gid=$(getent group ${group} | cut -d: -f3 || true)
if [ -z "$gid" ]; then
  echo "numakit-hugepages: no group ${group} on this host: install the server first" >&2
  exit 1
fi
sysctl -w vm.hugetlb_shm_group="$gid"
`;
  const unit = renderUnit(generatedBy(d.options.engine, label), [
    {
      name: 'Unit',
      entries: [
        ['Description', 'Reserve per-node huge pages for the database'],
        ['Before', `${d.options.unit}.service`],
      ],
    },
    {
      name: 'Service',
      entries: [
        ['Type', 'oneshot'],
        ['RemainAfterExit', 'yes'],
        ['ExecStart', '/usr/local/sbin/numakit-hugepages.sh'],
      ],
    },
    { name: 'Install', entries: [['WantedBy', 'multi-user.target']] },
  ]);
  return [
    {
      path: '/usr/local/sbin/numakit-hugepages.sh',
      content: script,
      mode: 0o755,
      about: `huge pages: ${d.hugePages.map((h) => `node ${h.node} ${h.pages}`).join(', ')}; vm.hugetlb_shm_group = group ${group}`,
    },
    {
      path: '/etc/systemd/system/numakit-hugepages.service',
      content: unit,
      mode: 0o644,
      about: 'runs the huge page script at boot, before the server',
    },
  ];
}

export function renderDb(d: DbDecision): PlanFile[] {
  return [dropIn(d), serverConf(d), ...hugePageFiles(d)];
}

/** What the running server says its pool is: PostgreSQL's SHOW in its own unit, MySQL/MariaDB's bytes. */
function poolCheck(d: DbDecision): string {
  if (d.options.engine === 'postgres')
    return valueCheck(
      'shared_buffers',
      "cd / && runuser -u postgres -- psql -XAtc 'SHOW shared_buffers'",
      sizeWord(d.poolGiB, 'GB', 'MB'),
    );
  return valueCheck(
    'innodb_buffer_pool_size',
    "mysql -Nse 'SELECT @@innodb_buffer_pool_size'",
    `${Math.round(d.poolGiB * 1024) * 1024 * 1024}`,
  );
}

function dbCommands(d: DbDecision): Pick<PlanDoc, 'start' | 'verify' | 'stop' | 'restore'> {
  const u = d.options.unit;
  const huge = d.hugePages.length > 0;
  return {
    start: [...(huge ? [enableNow('numakit-hugepages')] : []), `systemctl restart ${u}`],
    verify: [
      activeCheck(u),
      ...(d.cpuList === null ? [] : [threadsCheck(u, d.cpuList)]),
      policyCheck(u, d.policy, d.mask),
      poolCheck(d),
    ],
    stop: huge ? [disableNow('numakit-hugepages')] : [],
    restore: [`systemctl restart ${u}`],
  };
}

export function dbDoc(d: DbDecision): PlanDoc {
  const o = d.options;
  const why = {
    bind: 'the pool fits the node with room to spare, so CPUs and memory are bound there',
    preferred:
      'the pool fills most of the node, so memory comes from it first and spills to the other nodes instead of swapping or OOM',
    interleave: 'the pool is larger than a node can hold comfortably, so pages are spread evenly over the nodes',
  }[d.policy];
  return {
    ...dbCommands(d),
    workload: o.engine,
    intro: `${o.engine} as ${o.unit}.service with memory policy ${d.policy} on node(s) ${d.mask}: ${why}. The server's own settings go in a separate file so the package's configuration stays untouched.`,
    requirements: dbRequirements(o.engine, o.mariadb, o.hugePages),
    layout: [
      ['unit', 'policy', 'nodes', 'CPUs', 'buffer pool'],
      [`${o.unit}.service`, d.policy, d.mask, d.cpuList ?? 'all (scheduler decides)', `${num(d.poolGiB)} GiB`],
    ],
    prepare: [
      ...(o.includeFrom === null
        ? []
        : [
            `Make postgresql.conf read the conf.d directory (the distribution's does not): \`grep -qx "include_dir = 'conf.d'" ${o.includeFrom} || echo "include_dir = 'conf.d'" >> ${o.includeFrom}\` (running it again adds nothing), and give the directory to postgres after installing the file: \`chown -R postgres:postgres ${o.confPath.replace(/\/[^/]+$/, '')}\`.`,
          ]),
      'Warm the buffer pool after a restart from the node it is bound to (Linux allocates on first touch): a restart is when placement is decided.',
    ],
    enable: [
      `\`systemctl daemon-reload && systemctl restart ${o.unit}\`${d.hugePages.length > 0 ? ` (after \`${enableNow('numakit-hugepages')}\`)` : ''} in a quiet window.`,
    ],
    rollback: [
      d.hugePages.length > 0
        ? 'Set the node huge page counts back to 0 and vm.hugetlb_shm_group back to 0 (the block stops numakit-hugepages.service, which set them).'
        : 'If an earlier plan installed numakit-hugepages.service, disable it and set the node huge page counts back to 0.',
    ],
    checks: [
      `\`numastat -p $(pidof ${o.engine === 'mysql' ? (o.exec?.[0]?.split('/').pop() ?? 'mysqld') : 'postgres'} | cut -d' ' -f1)\`: memory on node(s) ${d.mask}${d.policy === 'interleave' ? ', evenly spread' : ''}.`,
      '`numakit stat`: numa_miss/numa_foreign per node; p95/p99 query latency and TPS against the A/B host.',
      `\`${d.tuning.doctor}\`: no finding on the settings of its profile.`,
    ],
  };
}
