// The exporter's own process, under the names every Prometheus client library uses
// (process_cpu_seconds_total, process_resident_memory_bytes ...), with a prefix where two
// exporters share a process (the agent: numakit_agent_process_*).
import { readdirSync } from 'node:fs';
import { family, s, type Family } from '../exposition.js';

const STARTED = Date.now() / 1000 - process.uptime();

function openFds(): number | null {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return null;
  }
}

export function selfFamilies(prefix = '', version = '0.1.0'): Family[] {
  const cpu = process.cpuUsage();
  const fds = openFds();
  const heap = process.memoryUsage();
  return [
    family(`${prefix}process_cpu_seconds_total`, 'counter', 'Total user and system CPU time spent in seconds.', [
      s((cpu.user + cpu.system) / 1e6),
    ]),
    family(`${prefix}process_resident_memory_bytes`, 'gauge', 'Resident memory size in bytes.', [s(heap.rss)]),
    family(`${prefix}process_start_time_seconds`, 'gauge', 'Start time of the process since unix epoch in seconds.', [
      s(Math.round(STARTED)),
    ]),
    family(`${prefix}process_open_fds`, 'gauge', 'Number of open file descriptors.', fds === null ? [] : [s(fds)]),
    // prom-client's names: the V8 heap apart from the RSS, what a leak in JavaScript shows first (bench/soak.mjs).
    family(`${prefix}nodejs_heap_size_used_bytes`, 'gauge', 'Process heap size used from Node.js in bytes.', [
      s(heap.heapUsed),
    ]),
    family(`${prefix}nodejs_heap_size_total_bytes`, 'gauge', 'Process heap size from Node.js in bytes.', [
      s(heap.heapTotal),
    ]),
    family(`${prefix}nodejs_external_memory_bytes`, 'gauge', 'Node.js external memory size in bytes.', [
      s(heap.external),
    ]),
    ...(prefix === ''
      ? [
          family('numakit_build_info', 'gauge', 'numakit version and the Node.js it runs on', [
            s(1, { version, nodejs: process.version }),
          ]),
        ]
      : []),
  ];
}
