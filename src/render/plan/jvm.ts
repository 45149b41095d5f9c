// Files of a jvm or elasticsearch plan: units bound per node (or one interleaved), JVM options.
import type { JvmDecision, JvmInstance } from '../../policy/plan/jvm.js';
import type { PlanFile } from '../../policy/plan/types.js';
import { generatedBy } from './header.js';
import { elasticsearchRequirements, jvmRequirements } from '../../policy/plan/requirements.js';
import type { PlanDoc } from './plan_md.js';
import { activeCheck, policyCheck, procOf, sizeWord, threadsCheck } from './checks.js';
import { num } from '../../policy/plan/machine.js';
import { numaEntries, renderUnit, type UnitEntry } from './systemd.js';
import { disableNow, enableNow } from './blocks.js';

const heapOpts = (d: JvmDecision) => [
  `-Xms${sizeWord(d.heapGiB, 'g', 'm')}`,
  `-Xmx${sizeWord(d.heapGiB, 'g', 'm')}`,
  '-XX:+UseNUMA',
  '-XX:+AlwaysPreTouch',
];

function unitName(d: JvmDecision, i: JvmInstance): string {
  return d.mode === 'interleave' ? d.options.name : `${d.options.name}-node${i.node}`;
}

function numa(d: JvmDecision, i: JvmInstance): UnitEntry[] {
  return d.mode === 'interleave'
    ? numaEntries('interleave', d.mask, null)
    : numaEntries('bind', `${i.node}`, i.cpuList);
}

function jvmUnit(d: JvmDecision, i: JvmInstance): PlanFile {
  const o = d.options;
  const name = unitName(d, i);
  const content = renderUnit(generatedBy(o.flavour, d.machine.label), [
    {
      name: 'Unit',
      entries: [
        [
          'Description',
          `${o.name} (${d.mode === 'interleave' ? `interleaved over nodes ${d.mask}` : `NUMA node ${i.node}`})`,
        ],
        ['After', 'network-online.target'],
        ['Wants', 'network-online.target'],
      ],
    },
    {
      name: 'Service',
      entries: [
        ['User', o.user],
        ...numa(d, i),
        ['ExecStart', `${o.java} ${heapOpts(d).join(' ')} -jar ${o.jar}`],
        ['Restart', 'on-failure'],
        // A JVM stopped by SIGTERM exits 128 + 15: a clean stop, not a failure (systemctl stop, roll back).
        ['SuccessExitStatus', '143'],
      ],
    },
    { name: 'Install', entries: [['WantedBy', 'multi-user.target']] },
  ]);
  return {
    path: `/etc/systemd/system/${name}.service`,
    content,
    mode: 0o644,
    about:
      d.mode === 'interleave'
        ? `one JVM, memory interleaved over ${d.mask}`
        : `JVM bound to node ${i.node} (CPUs ${i.cpuList})`,
  };
}

/** Elasticsearch: a drop-in on the packaged unit (interleave), or a unit and a config directory per node. */
function esFiles(d: JvmDecision, i: JvmInstance): PlanFile[] {
  const opts = {
    path: '',
    content: `${[...generatedBy('elasticsearch', d.machine.label).map((l) => `## ${l}`), ...heapOpts(d)].join('\n')}\n`,
    mode: 0o644,
    about: 'heap, UseNUMA, AlwaysPreTouch',
  };
  if (d.mode === 'interleave')
    return [esInterleaveDropIn(d, i), { ...opts, path: '/etc/elasticsearch/jvm.options.d/numakit.options' }];
  const conf = `/etc/elasticsearch/node${i.node}`;
  return [
    {
      path: `/etc/systemd/system/elasticsearch-node${i.node}.service`,
      content: esNodeUnit(d, i, conf),
      mode: 0o644,
      about: `Elasticsearch on node ${i.node}, ports ${9200 + i.index}/${9300 + i.index}`,
    },
    {
      path: `${conf}/elasticsearch.yml`,
      content: esNodeYml(d, i),
      mode: 0o644,
      about: `node ${i.node}: data on ${d.options.dataDir}/node${i.node}, own ports, bootstrap.memory_lock`,
    },
    { ...opts, path: `${conf}/jvm.options.d/numakit.options` },
  ];
}

/** The packaged elasticsearch.service, its memory interleaved over the nodes. */
function esInterleaveDropIn(d: JvmDecision, i: JvmInstance): PlanFile {
  // bootstrap.memory_lock (set by hand in the package's elasticsearch.yml: Before you start) needs it.
  const dropIn = renderUnit(generatedBy('elasticsearch', d.machine.label), [
    { name: 'Service', entries: [...numa(d, i), ['LimitMEMLOCK', 'infinity']] },
  ]);
  return {
    path: '/etc/systemd/system/elasticsearch.service.d/50-numakit-numa.conf',
    content: dropIn,
    mode: 0o644,
    about: `interleave over nodes ${d.mask}, LimitMEMLOCK=infinity`,
  };
}

/** One node's elasticsearch.yml: its name, data, logs and ports; the cluster settings are the user's. */
function esNodeYml(d: JvmDecision, i: JvmInstance): string {
  return [
    ...generatedBy('elasticsearch', d.machine.label).map((l) => `# ${l}`),
    '# Node-specific settings; add the cluster settings of your existing elasticsearch.yml below.',
    `node.name: \${HOSTNAME}-numa${i.node}`,
    `path.data: ${d.options.dataDir}/node${i.node}/elasticsearch`,
    `path.logs: /var/log/elasticsearch/node${i.node}`,
    `http.port: ${9200 + i.index}`,
    `transport.port: ${9300 + i.index}`,
    '# The heap is never swapped out: locked at start (the unit gives LimitMEMLOCK=infinity).',
    'bootstrap.memory_lock: true',
    '',
  ].join('\n');
}

/** The unit of the Elasticsearch bound to one node, reading its configuration from `conf`. */
function esNodeUnit(d: JvmDecision, i: JvmInstance, conf: string): string {
  return renderUnit(generatedBy('elasticsearch', d.machine.label), [
    {
      name: 'Unit',
      entries: [
        ['Description', `Elasticsearch bound to NUMA node ${i.node}`],
        ['After', 'network-online.target'],
        ['Wants', 'network-online.target'],
      ],
    },
    {
      name: 'Service',
      entries: [
        ['Type', 'notify'],
        ['User', d.options.user],
        ['Environment', `ES_PATH_CONF=${conf}`],
        ...numa(d, i),
        ['ExecStart', '/usr/share/elasticsearch/bin/elasticsearch'],
        ['LimitNOFILE', '65535'],
        ['LimitMEMLOCK', 'infinity'],
        ['TimeoutStartSec', '900'],
        ['SuccessExitStatus', '143'],
      ],
    },
    { name: 'Install', entries: [['WantedBy', 'multi-user.target']] },
  ]);
}

export function renderJvm(d: JvmDecision): PlanFile[] {
  return d.instances.flatMap((i) => (d.options.flavour === 'elasticsearch' ? esFiles(d, i) : [jvmUnit(d, i)]));
}

/** The units the plan starts: the packaged elasticsearch (interleave), or one per instance. */
function jvmUnits(d: JvmDecision): string[] {
  const o = d.options;
  return o.flavour === 'elasticsearch' && d.mode === 'interleave'
    ? ['elasticsearch']
    : d.instances.map((i) => (o.flavour === 'elasticsearch' ? `elasticsearch-node${i.node}` : unitName(d, i)));
}

/** Each instance's unit active, bound or interleaved as planned, and (a plain JVM) running with the planned -Xmx. */
function jvmChecks(d: JvmDecision, units: readonly string[]): string[] {
  const o = d.options;
  return d.instances.flatMap((i, k) => {
    const u = units[k] ?? units[0]!;
    return [
      activeCheck(u),
      ...(d.mode === 'interleave'
        ? [policyCheck(u, 'interleave', d.mask)]
        : [threadsCheck(u, i.cpuList), policyCheck(u, 'bind', `${i.node}`)]),
      ...(o.flavour === 'elasticsearch'
        ? []
        : [
            `tr '\\0' '\\n' < ${procOf(u, 'cmdline')} | grep -qx -- '-Xmx${sizeWord(d.heapGiB, 'g', 'm')}' || { echo '${u}: not running with -Xmx${sizeWord(d.heapGiB, 'g', 'm')}' >&2; exit 1; }`,
          ]),
    ];
  });
}

export function jvmDoc(d: JvmDecision): PlanDoc {
  const o = d.options;
  const units = jvmUnits(d);
  return {
    start: [enableNow(units.join(' '))],
    verify: [...new Set(jvmChecks(d, units))],
    stop: [disableNow(units.join(' '))],
    workload: o.flavour,
    intro:
      d.mode === 'per-node'
        ? `The ${num(d.heapGiB)} GiB heap fits one node, so each instance runs bound to its own node (NUMAPolicy=bind, CPUAffinity= of the node): all of its heap is local. -XX:+AlwaysPreTouch touches the whole heap at start so pages land on the bound node before traffic arrives.`
        : `The ${num(d.heapGiB)} GiB heap is more than one node should hold, so one instance runs with its memory interleaved over nodes ${d.mask}: every thread sees the same average latency instead of one node filling up and swapping. -XX:+UseNUMA lets the JVM place young objects near the thread that allocates them.`,
    layout: [
      ['unit', 'nodes', 'CPUs', 'heap'],
      ...d.instances.map((i, k) => [
        `${units[k] ?? units[0]}.service`,
        d.mode === 'interleave' ? d.mask : `${i.node}`,
        d.mode === 'interleave' ? 'all' : i.cpuList,
        `${sizeWord(d.heapGiB, 'g', 'm')}`,
      ]),
    ],
    requirements: o.flavour === 'elasticsearch' ? elasticsearchRequirements() : jvmRequirements(),
    prepare:
      o.flavour !== 'elasticsearch'
        ? []
        : d.mode === 'per-node'
          ? [
              'Copy /etc/elasticsearch/* into each /etc/elasticsearch/nodeN/ before installing the files there, then merge the cluster settings into each elasticsearch.yml.',
              'Stop the packaged elasticsearch.service: the per-node units replace it.',
            ]
          : [
              'Add `bootstrap.memory_lock: true` to /etc/elasticsearch/elasticsearch.yml (the drop-in gives the unit LimitMEMLOCK=infinity it needs).',
            ],
    enable: [`\`${enableNow(units.join(' '))}\``],
    rollback: [
      o.flavour === 'elasticsearch'
        ? 'Start the packaged elasticsearch.service again.'
        : 'Start the application the way it ran before.',
    ],
    checks: [
      '`numastat -p PID` of each JVM: heap on its own node (per-node) or spread evenly (interleave).',
      `GC pause times and p99 latency against the A/B host; \`numakit stat\` and \`${d.tuning.doctor}\`.`,
    ],
  };
}
