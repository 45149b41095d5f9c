// Files of a redis plan: a template unit, one drop-in per instance with its taskset + numactl
// ExecStart=, and one config per instance (includes the packaged redis.conf).
import type { RedisDecision, RedisInstance } from '../../policy/plan/redis.js';
import type { PlanFile } from '../../policy/plan/types.js';
import { generatedBy } from './header.js';
import { redisRequirements } from '../../policy/plan/requirements.js';
import type { PlanDoc } from './plan_md.js';
import { renderUnit } from './systemd.js';
import { activeCheck, policyCheck, threadsCheck, valueCheck } from './checks.js';
import { disableNow, enableNow } from './blocks.js';

const W = 'redis';

function instanceFiles(d: RedisDecision, i: RedisInstance): PlanFile[] {
  const conf = [
    ...generatedBy(W, d.machine.label).map((l) => `# ${l}`),
    'include /etc/redis/redis.conf',
    `port ${i.port}`,
    `dir /var/lib/redis/${i.port}`,
    `pidfile /run/redis-numa/redis-${i.port}.pid`,
    'daemonize no',
    'supervised systemd',
    `maxmemory ${i.maxmemoryMb}mb`,
    '',
  ].join('\n');
  const dropIn = renderUnit(generatedBy(W, d.machine.label), [
    {
      name: 'Service',
      entries: [
        ['ExecStart', ''],
        [
          'ExecStart',
          `/usr/bin/taskset -c ${i.cpuList} /usr/bin/numactl --membind=${i.node} /usr/bin/redis-server /etc/redis/numa/${i.port}.conf`,
        ],
      ],
    },
  ]);
  return [
    {
      path: `/etc/redis/numa/${i.port}.conf`,
      content: conf,
      mode: 0o644,
      about: `port ${i.port}, maxmemory ${i.maxmemoryMb}mb`,
    },
    {
      path: `/etc/systemd/system/redis-numa@${i.port}.service.d/50-numakit-numa.conf`,
      content: dropIn,
      mode: 0o644,
      about: `port ${i.port}: CPUs ${i.cpuList}, memory of node ${i.node}`,
    },
  ];
}

export function renderRedis(d: RedisDecision): PlanFile[] {
  const template = renderUnit(generatedBy(W, d.machine.label), [
    {
      name: 'Unit',
      entries: [
        ['Description', 'Redis on port %i bound to its NUMA node'],
        ['Wants', 'network-online.target'],
        ['After', 'network-online.target'],
      ],
    },
    {
      name: 'Service',
      entries: [
        ['Type', 'notify'],
        ['User', d.options.user],
        ['RuntimeDirectory', 'redis-numa'],
        ['RuntimeDirectoryPreserve', 'yes'],
        ['StateDirectory', 'redis/%i'],
        ['ExecStart', '/usr/bin/redis-server /etc/redis/numa/%i.conf'],
        ['Restart', 'on-failure'],
        ['LimitNOFILE', '65535'],
      ],
    },
    { name: 'Install', entries: [['WantedBy', 'multi-user.target']] },
  ]);
  return [
    {
      path: '/etc/systemd/system/redis-numa@.service',
      content: template,
      mode: 0o644,
      about: 'template: one Redis per port',
    },
    ...d.instances.flatMap((i) => instanceFiles(d, i)),
  ];
}

function redisChecks(i: RedisInstance): string[] {
  const u = `redis-numa@${i.port}`;
  return [
    activeCheck(u),
    valueCheck(`redis on port ${i.port}`, `redis-cli -p ${i.port} ping`, 'PONG'),
    valueCheck(
      `maxmemory of port ${i.port}`,
      `redis-cli -p ${i.port} config get maxmemory | tail -n 1`,
      `${i.maxmemoryMb * 1024 * 1024}`,
    ),
    threadsCheck(u, i.cpuList),
    policyCheck(u, 'bind', `${i.node}`),
  ];
}

export function redisDoc(d: RedisDecision): PlanDoc {
  const names = d.instances.map((i) => `redis-numa@${i.port}`);
  return {
    start: [enableNow(names.join(' '))],
    verify: d.instances.flatMap(redisChecks),
    stop: [disableNow(names.join(' '))],
    workload: W,
    intro: `${d.instances.length} Redis instance${d.instances.length === 1 ? '' : 's'}, ${d.options.perCore ? 'one per physical core' : d.options.perL3 ? 'one per L3 cache (its CPUs share that L3)' : 'one per NUMA node'}, each pinned with taskset to its CPUs and with numactl --membind to its node's memory. Redis runs its commands on one thread, so a pinned instance keeps its data in the caches and memory next to that thread. Clients (or a proxy/cluster) spread keys over the ports.`,
    layout: [
      ['port', 'node', 'CPUs', 'maxmemory'],
      ...d.instances.map((i) => [`${i.port}`, `${i.node}`, i.cpuList, `${i.maxmemoryMb}mb`]),
    ],
    requirements: redisRequirements(),
    prepare: [
      'Install numactl (taskset is in util-linux); stop the packaged redis-server.service if these ports replace it.',
      'Set vm.overcommit_memory=1 so BGSAVE can fork (Redis warns at start-up otherwise).',
    ],
    enable: [
      `\`${enableNow(names.length > 4 ? `${names.slice(0, 2).join(' ')} ... (all ${names.length})` : names.join(' '))}\``,
    ],
    rollback: ['Start the packaged redis-server.service again and point clients back at its port.'],
    checks: [
      '`numastat -p $(pgrep -f "redis-server.*:PORT")`: memory on the instance\'s node only.',
      "`taskset -cp PID`: the instance's CPUs.",
      `\`numakit stat\` and \`${d.tuning.doctor}\`; redis-cli --latency against the A/B host.`,
    ],
  };
}
