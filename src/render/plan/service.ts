// Files of a service plan: NAME@.service (the instance name is the NUMA node) and one drop-in
// per instance with NUMAPolicy=bind, NUMAMask= and CPUAffinity= (systemd >= 243; older systemd
// gets numactl in the template) and MemoryMax= the node's budget (the program's own memory is
// not known to the plan, so its cgroup holds it under the line a bound process must not cross).
import type { PlanFile } from '../../policy/plan/types.js';
import type { ServiceDecision } from '../../policy/plan/service.js';
import { generatedBy } from './header.js';
import type { PlanDoc } from './plan_md.js';
import { numaEntries, renderUnit, type UnitEntry } from './systemd.js';
import { activeCheck, policyCheck, threadsCheck, valueCheck } from './checks.js';
import { disableNow, enableNow } from './blocks.js';

/**
 * systemd has no NUMAPolicy= for weighted interleave: the instance keeps CPUAffinity= and its
 * ExecStart (reset, then set) runs the program through `numakit run -w` (found on systemd's PATH).
 */
function weightedEntries(mask: string, cpuList: string, exec: readonly string[]): UnitEntry[] {
  return [
    ['CPUAffinity', cpuList],
    ['ExecStart', ''],
    ['ExecStart', `numakit run --weighted-interleave=${mask} -- ${exec.join(' ')}`],
  ];
}

export function renderService(d: ServiceDecision): PlanFile[] {
  const o = d.options;
  const modern = o.systemdVersion >= 243;
  const exec = modern ? o.exec.join(' ') : `/usr/bin/numactl --cpunodebind=%i --membind=%i ${o.exec.join(' ')}`;
  const service: UnitEntry[] = [
    ...(o.user === null ? [] : [['User', o.user] as const]),
    ['ExecStart', exec],
    ['Restart', 'on-failure'],
  ];
  const template = renderUnit(generatedBy('service', d.machine.label), [
    { name: 'Unit', entries: [['Description', `${o.name} on NUMA node %i`]] },
    { name: 'Service', entries: service },
    { name: 'Install', entries: [['WantedBy', 'multi-user.target']] },
  ]);
  const files: PlanFile[] = [
    {
      path: `/etc/systemd/system/${o.name}@.service`,
      content: template,
      mode: 0o644,
      about: `template: ${o.name}@NODE.service`,
    },
  ];
  for (const i of d.instances) {
    const numa = i.weighted
      ? weightedEntries(i.weighted.mask, i.cpuList, o.exec)
      : modern
        ? numaEntries('bind', `${i.node}`, i.cpuList)
        : [];
    const content = renderUnit(generatedBy('service', d.machine.label), [
      { name: 'Service', entries: [...numa, ['MemoryMax', `${i.memoryMaxMib}M`]] },
    ]);
    files.push({
      path: `/etc/systemd/system/${o.name}@${i.node}.service.d/50-numakit-numa.conf`,
      content,
      mode: 0o644,
      about: i.weighted
        ? `node ${i.node}: CPUs ${i.cpuList}, memory weighted-interleaved over ${i.weighted.mask}, MemoryMax ${i.memoryMaxMib}M (the node's budget over its weight's share)`
        : `node ${i.node}: ${modern ? `CPUs ${i.cpuList}, memory bound, ` : ''}MemoryMax ${i.memoryMaxMib}M (the node's budget)`,
    });
  }
  return files;
}

export function serviceDoc(d: ServiceDecision): PlanDoc {
  const units = d.instances.map((i) => `${d.options.name}@${i.node}`);
  const weighted = d.instances.filter((i) => i.weighted !== undefined);
  return {
    start: [enableNow(units.join(' '))],
    verify: d.instances.flatMap((i, k) => [
      activeCheck(units[k]!),
      threadsCheck(units[k]!, i.cpuList),
      policyCheck(units[k]!, 'bind', `${i.node}`),
      valueCheck(
        `MemoryMax of ${units[k]}`,
        `systemctl show -p MemoryMax --value ${units[k]}`,
        `${i.memoryMaxMib * 1024 * 1024}`,
      ),
    ]),
    stop: [disableNow(units.join(' '))],
    workload: 'service',
    intro: `${d.options.exec[0]} as the template unit ${d.options.name}@.service: the instance name is the NUMA node, and each instance runs on that node's CPUs with its memory bound there${weighted.length > 0 ? ` (the instance${weighted.length === 1 ? '' : 's'} on node ${weighted.map((i) => i.node).join(', ')}: weighted-interleaved over ${weighted.map((i) => i.weighted!.mask).join('; ')}, for bandwidth)` : ''}.${d.options.perNode ? ' One instance per node: the program must accept running several copies (ports, data directories).' : ''}`,
    layout: [
      ['unit', 'node', 'CPUs'],
      ...d.instances.map((i) => [`${d.options.name}@${i.node}.service`, `${i.node}`, i.cpuList]),
    ],
    prepare: [],
    enable: [`\`${enableNow(units.join(' '))}\``],
    rollback: [],
    checks: [
      d.instances.some((i) => i.weighted)
        ? '`numastat -p PID` of each instance: memory on its node, or for a weighted instance spread over its mask as the weights say (`grep weighted /proc/PID/numa_maps`).'
        : '`numastat -p PID` of each instance: memory on its node.',
      "`grep Cpus_allowed_list /proc/PID/status`: its node's CPUs.",
      `\`numakit stat\` and \`${d.tuning.doctor}\`.`,
    ],
  };
}
