// The CPU frequency governor of every online CPU (CPUs without cpufreq are "not on this machine").
import type { Change } from '../../model/change.js';
import type { Topology } from '../../model/topology.js';
import type { Advice } from '../knowledge/types.js';
import { sysfs } from './change.js';

export function governorPath(cpu: number): string {
  return `sys/devices/system/cpu/cpu${cpu}/cpufreq/scaling_governor`;
}

export function governorChanges(a: Advice<'performance'>, t: Topology, cpus?: readonly number[]): Change[] {
  const ids = cpus ?? t.cpus.filter((c) => c.online).map((c) => c.id);
  return ids.map((id) => sysfs(governorPath(id), a.value, a.reason));
}
