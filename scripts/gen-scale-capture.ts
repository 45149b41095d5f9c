// Writes the generated scale capture, a machine tree for the scale tests and bench (deterministic: the same tree every run).
//   node --import tsx scripts/gen-scale-capture.ts DIR [--shape large|small|test] [--procs N]
//       [--mix servers|large]
// large: 8 sockets x 4 nodes x 28 cores x 2 threads (1,792 CPUs, 32 nodes), 10,000 processes of
// 4 threads, a NIC and an NVMe per socket. small: 64 CPUs and 4 nodes with the same processes
// (the peak-memory ratio's denominator). test: a few CPUs and 120 processes (unit tests).
import { MIXES, type ScaleMix, SHAPES, writeScaleCapture } from '../test/fixtures/scale_capture.js';

const args = process.argv.slice(2);
const opt = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const dir = args[0];
const shapeName = opt('--shape') ?? 'large';
const shape = SHAPES[shapeName];
if (dir === undefined || dir.startsWith('--') || shape === undefined) {
  console.error(`usage: gen-scale-capture.ts DIR [--shape ${Object.keys(SHAPES).join('|')}] [--procs N]`);
  process.exit(2);
}
const procs = opt('--procs');
if (procs !== undefined && !/^\d+$/.test(procs)) {
  console.error(`gen-scale-capture: --procs ${procs}: not a count`);
  process.exit(2);
}
const mix = opt('--mix') ?? 'servers';
if (!MIXES.includes(mix as ScaleMix)) {
  console.error(`gen-scale-capture: --mix ${mix}: one of ${MIXES.join(', ')}`);
  process.exit(2);
}
const withProcs = {
  ...shape,
  mix: mix as ScaleMix,
  ...(procs === undefined ? {} : { procs: Number(procs) }),
};
// small keeps large's processes (folded onto its CPUs and nodes): same processes, smaller machine.
writeScaleCapture(
  dir,
  withProcs,
  shapeName === 'small' ? { ...SHAPES.large!, procs: withProcs.procs, mix: withProcs.mix } : withProcs,
);
console.log(`wrote ${dir} (${shapeName}, ${withProcs.procs} processes, mix ${mix})`);
