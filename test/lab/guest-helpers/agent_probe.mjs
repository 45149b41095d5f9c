// Helpers for the agent's guest scripts (imported by agent_scenario.mjs): locality of a process
// as the kernel shows it (anonymous pages per node from numa_maps, as the agent counts them; nodes of the CPUs its threads ran on in a
// short window), every thread's affinity, and /proc/vmstat counters.
import { readFileSync, readdirSync } from 'node:fs';

export function nodeOfCpu() {
  const map = new Map();
  for (const d of readdirSync('/sys/devices/system/node').filter((n) => /^node\d+$/.test(n))) {
    const list = readFileSync(`/sys/devices/system/node/${d}/cpulist`, 'utf8').trim();
    for (const r of list.split(',').filter(Boolean)) {
      const [a, b = a] = r.split('-').map(Number);
      for (let c = a; c <= b; c++) map.set(c, Number(d.slice(4)));
    }
  }
  return map;
}

/** Pages per node of the process's own (anonymous) memory: file mappings are shared page cache. */
export function pagesPerNode(pid) {
  const out = {};
  for (const line of readFileSync(`/proc/${pid}/numa_maps`, 'utf8').split('\n')) {
    if (/ file=/.test(line) && !/ huge /.test(line)) continue;
    for (const m of line.matchAll(/\bN(\d+)=(\d+)/g)) out[m[1]] = (out[m[1]] ?? 0) + Number(m[2]);
  }
  return out;
}

/** tid -> [cpu ticks, last CPU] */
export function threadTicks(pid) {
  const out = new Map();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const text = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
      out.set(Number(tid), [Number(f[11]) + Number(f[12]), Number(f[36])]);
    } catch {}
  }
  return out;
}

/**
 * Locality: share of its pages on the nodes where its threads used CPU between two ticks readings.
 * `pages`: its pages per node when the caller has them (read here otherwise).
 */
export function localityBetween(pid, before, after, cpuNode, pages = pagesPerNode(pid)) {
  const w = new Map();
  let total = 0;
  for (const [tid, [t, cpu]] of after) {
    const d = t - (before.get(tid)?.[0] ?? 0);
    if (d <= 0) continue;
    const n = cpuNode.get(cpu);
    w.set(n, (w.get(n) ?? 0) + d);
    total += d;
  }
  if (total === 0)
    for (const [, [, cpu]] of after) {
      w.set(cpuNode.get(cpu), 1);
      total = w.size;
    }
  const all = Object.values(pages).reduce((a, b) => a + b, 0);
  let sum = 0;
  for (const [n, x] of w) sum += (x / total) * ((pages[n] ?? 0) / all);
  return { locality: sum, pages, runNodes: [...w.keys()].sort() };
}

/** tid -> Cpus_allowed_list of every thread. */
export function affinities(pid) {
  const out = {};
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      out[tid] = /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8'))[1];
    } catch {}
  }
  return out;
}

export function vmstat(key) {
  const m = new RegExp(`^${key} (\\d+)$`, 'm').exec(readFileSync('/proc/vmstat', 'utf8'));
  return m ? Number(m[1]) : 0;
}

/** utime + stime of a process and its reaped children, in seconds. */
export function cpuSeconds(pid) {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const r = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return (Number(r[11]) + Number(r[12]) + Number(r[13]) + Number(r[14])) / 100;
  } catch {
    return null;
  }
}

/** System (kernel) CPU seconds of a process and its reaped children: for a tuner, mostly the page copying of its migrations. */
export function systemCpuSeconds(pid) {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const r = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return (Number(r[12]) + Number(r[14])) / 100;
  } catch {
    return null;
  }
}

/** Locality of one thread (the main one: tid = pid) between two ticks readings: its pages on the node it ran on; null when it did not run. */
export function threadLocality(pid, tid, before, after, cpuNode, known = null) {
  const a = after.get(tid);
  if (a === undefined || a[0] - (before.get(tid)?.[0] ?? 0) <= 0) return null;
  const pages = known ?? pagesPerNode(pid);
  const all = Object.values(pages).reduce((x, y) => x + y, 0);
  return all === 0 ? null : (pages[cpuNode.get(a[1])] ?? 0) / all;
}

/** Node id -> MemFree in MiB (its meminfo). */
export function nodeFreeMiB() {
  const out = {};
  for (const d of readdirSync('/sys/devices/system/node').filter((n) => /^node\d+$/.test(n))) {
    const m = /MemFree:\s+(\d+) kB/.exec(readFileSync(`/sys/devices/system/node/${d}/meminfo`, 'utf8'));
    if (m) out[d.slice(4)] = Math.round(Number(m[1]) / 1024);
  }
  return out;
}
