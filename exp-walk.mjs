import { walkProcesses } from './dist/discover/placement.js';
import { ProcStatFiles } from './dist/sysfs/proc_stat_files.js';
import { listPids } from './dist/sysfs/proc_list.js';
import { openRoot } from './dist/sysfs/root.js';
const root = openRoot('/work/captures/large');
const what = process.argv[2];
const c0 = process.cpuUsage(); const t0 = performance.now();
if (what === 'status') walkProcesses(root);
else { const f = new ProcStatFiles(root); const out = {}; let n = 0; for (const pid of listPids(root)) if (f.read(pid, out) === 'read') n++; }
const c = process.cpuUsage(c0);
console.log(what.padEnd(7), (performance.now() - t0).toFixed(1), 'ms wall', ((c.user + c.system) / 1000).toFixed(1), 'cpu');
