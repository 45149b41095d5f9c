// The example machines every planner is tested on: each examples/NAME as `numakit --example NAME`
// reads it, and the cases (workload + options) run on each.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { discoverTopology } from '../../../src/discover/topology.js';
import { machineShare } from '../../../src/policy/plan/machine.js';
import type { RawOptions } from '../../../src/policy/plan/options.js';
import type { MachineShare } from '../../../src/policy/plan/types.js';
import { readOsRelease } from '../../../src/sysfs/os_release.js';
import { openRoot } from '../../../src/sysfs/root.js';

export const EXAMPLES = fileURLToPath(new URL('../../../examples', import.meta.url));

export function exampleNames(): string[] {
  return readdirSync(EXAMPLES)
    .filter((n) => existsSync(join(EXAMPLES, n, 'manifest.json')))
    .sort();
}

export function exampleMachine(name: string): MachineShare {
  const root = openRoot(join(EXAMPLES, name), `example ${name}`);
  return machineShare({
    topology: discoverTopology(root),
    label: root.label,
    os: readOsRelease(root),
    cgroup: { mems: null },
  });
}

/** One golden file per (machine, case). Options a user must give are given here. */
export const CASES: { name: string; workload: string; raw: RawOptions }[] = [
  { name: 'spark-standalone', workload: 'spark-standalone', raw: {} },
  { name: 'spark-yarn', workload: 'spark-yarn', raw: {} },
  { name: 'spark-k8s', workload: 'spark-k8s', raw: { 'k8s-node': 'worker-1' } },
  { name: 'mysql', workload: 'mysql', raw: { 'buffer-pool': '48g' } },
  {
    name: 'mysql-hugepages-systemd239',
    workload: 'mysql',
    raw: { 'buffer-pool': '48g', 'huge-pages': true, 'systemd-version': '239' },
  },
  { name: 'postgres', workload: 'postgres', raw: { 'buffer-pool': '24g' } },
  { name: 'redis', workload: 'redis', raw: {} },
  { name: 'jvm', workload: 'jvm', raw: { heap: '24g', jar: '/opt/app/app.jar' } },
  { name: 'elasticsearch', workload: 'elasticsearch', raw: { heap: '31g' } },
  {
    name: 'service-per-node',
    workload: 'service',
    raw: { name: 'ingest', exec: '/usr/local/bin/ingest --threads 8', 'per-node': true },
  },
];
