#!/usr/bin/env node
// The floor under serve's scrape and the agent's pass on the large capture (issue 27): what a
// bare Node loop doing only the unavoidable system calls costs on this machine, beside what
// numakit's own readers cost for the same files, in the same run (CPU ms, median of --rounds):
//   stats       readdir of proc/ and one open, read and close of each proc/PID/stat (10,000)
//   sampler     the process sampler's stage 1 over them (serve's options; the visit stops at once)
//   interrupts  proc/interrupts (20 MB) read in 64 KiB chunks, nothing parsed
//   scan        readInterrupts of its device rows, added up by node (serve's IRQ collector)
// The capture: bench/scale.mjs --captures DIR (DIR/large). Needs `npm run build`.
//   node bench/scale-floor-warm.mjs --captures /var/tmp/numakit-scale [--rounds 5]
import { closeSync, constants, openSync, readdirSync, readSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';

const argv = process.argv.slice(2);
const opt = (name, dflt) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : dflt);
const captures = opt('--captures', null);
if (captures === null) {
  console.error('usage: node bench/scale-floor-warm.mjs --captures DIR [--rounds N]');
  process.exit(2);
}
const rounds = Number(opt('--rounds', 5));
const dir = join(captures, 'large');
const dist = new URL('../dist/', import.meta.url);
const { createSampler } = await import(new URL('discover/process_sampler.js', dist));
const { readInterrupts } = await import(new URL('sysfs/irq.js', dist));
const { openRoot } = await import(new URL('sysfs/root.js', dist));
const { discoverTopology } = await import(new URL('discover/topology.js', dist));
const { nodeOfCpu } = await import(new URL('serve/collect/irqs.js', dist));

const root = openRoot(dir);
const buf = Buffer.allocUnsafeSlow(65536);
const flags = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;
const proc = join(dir, 'proc');

function stats() {
  for (const name of readdirSync(proc)) {
    if (name.charCodeAt(0) < 49 || name.charCodeAt(0) > 57) continue;
    const fd = openSync(`${proc}/${name}/stat`, flags);
    readSync(fd, buf, 0, 4096, 0);
    closeSync(fd);
  }
}
const sampler = createSampler(root, { cmdline: false, threads: false, memory: 'none' });
let now = 0;
function stage1() {
  for (const p of sampler.run({ nowMs: (now += 1000), largestFirst: { stop: () => true } })) void p;
}
function interrupts() {
  const fd = openSync(join(proc, 'interrupts'), flags);
  while (readSync(fd, buf, 0, buf.length, null) > 0);
  closeSync(fd);
}
const t = discoverTopology(root);
const devices = t.devices.filter((d) => d.node !== null && d.irqs.length > 0 && d.kind !== 'block');
const irqs = new Set(devices.flatMap((d) => d.irqs));
// serve's own CPU -> node table, as its IRQ collector passes it.
const { nodeOf, nodes } = nodeOfCpu(t);
const sumBy = { groupOf: nodeOf, groups: nodes };
const scan = () => readInterrupts(root, { irqs, sumBy });

const cpuMs = (f) => {
  const c0 = process.cpuUsage();
  f();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const cases = { stats, sampler: stage1, interrupts, scan };
const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (const f of Object.values(cases)) f(); // warm: the page cache, the JIT, the sampler's first pass
for (let r = 0; r < rounds; r++) for (const [k, f] of Object.entries(cases)) times[k].push(cpuMs(f));
console.log(`scale floor on ${dir} (load ${loadavg()[0].toFixed(2)}), CPU ms, median of ${rounds}:`);
for (const [k, xs] of Object.entries(times)) console.log(`  ${k.padEnd(11)} ${median(xs).toFixed(1).padStart(7)}`);
console.log(
  `  stage 1 over the bare loop: ${(median(times.sampler) / median(times.stats)).toFixed(2)}x; the scan over the bare read: ${(median(times.scan) / median(times.interrupts)).toFixed(2)}x`,
);
