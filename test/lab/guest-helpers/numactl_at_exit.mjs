// Preloaded (node --import) into `numakit topo --numactl` inside a lab guest: runs
// `numactl --hardware` as numakit's process exits and saves it to $LAB_NUMACTL_OUT, so both
// tools read free memory while the same Node process is resident. Run one after the other
// instead, the two `free` lines differ by the Node process's own footprint (tens of MB).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const out = process.env.LAB_NUMACTL_OUT;
if (!out) throw new Error('numactl_at_exit.mjs: LAB_NUMACTL_OUT is not set');
process.on('exit', () => writeFileSync(out, execFileSync('numactl', ['--hardware'])));
