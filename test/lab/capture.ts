// npm run capture -- [topology options] [--kernel 6.12] --name NAME [--out DIR] [--force] [--processes]
// Boots a lab guest, runs `numakit snapshot` in it, and writes the snapshot to examples/NAME/
// (or DIR) with a manifest recording the QEMU topology, kernel and date: fixtures and examples
// that come from a real multi-node kernel, not from a generator.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseLabArgs, TOPOLOGY_HELP } from './args.js';
import { describeGuestFailure } from './assert.js';
import { runInGuest } from './guest.js';
import { DEFAULT_KERNEL, isKernelSeries, KERNEL_SERIES } from './kernel.js';
import { NUMAKIT } from './numakit.js';
import { buildQemuArgs } from './qemu_args.js';
import { ensureLabAssets, REPO_ROOT } from './setup.js';
import { describeTopology, resolveTopology, type Topology } from './topology.js';

const USAGE = `usage: npm run capture -- [topology options] [--kernel 6.12] --name NAME [--out DIR] [--force] [--processes]
Writes a snapshot taken by numakit in a lab guest to examples/NAME/ (or DIR), with manifest.json.
--kernel 6.1|6.12: the guest's kernel, Debian 12's (default) or Debian 13's.
--processes: first starts WORKLOADS (below) and takes the snapshot with --processes, so that
stat --procs, top, doctor's process rules and agent --advise have processes to show.
Example: npm run capture -- --topology 4node-asym --name lab-4node-asym

${TOPOLOGY_HELP}`;

const GUEST_COMMAND = `${NUMAKIT} snapshot "$LAB_OUT/snap" && uname -r >"$LAB_OUT/kernel.txt"`;

/**
 * Processes for a --processes capture, each a node process touching its memory every 50 ms:
 * one whose memory is all on the last node while it runs on node 0 (the agent and doctor's
 * low-locality rule have something to fix), one local on node 0, one interleaved over all
 * nodes. process.title names each (libuv sets the comm), so its comm says what it is.
 */
const WORKLOAD = (name: string, mib: number) =>
  `node -e 'process.title="${name}";const b=Buffer.alloc(${mib}<<20,1);setInterval(()=>{for(let i=0;i<b.length;i+=4096)b[i]++},50)'`;
const WORKLOADS = [
  `numactl --cpunodebind=0 --membind=$(($(ls -d /sys/devices/system/node/node* | wc -l) - 1)) ${WORKLOAD('remote-app', 96)} &`,
  `numactl --cpunodebind=0 --membind=0 ${WORKLOAD('local-app', 64)} &`,
  `numactl --interleave=all ${WORKLOAD('spread-app', 48)} &`,
  'sleep 15;',
].join(' ');
const GUEST_COMMAND_PROCESSES = `${WORKLOADS} ${NUMAKIT} snapshot --processes "$LAB_OUT/snap" && uname -r >"$LAB_OUT/kernel.txt"`;

/** The topology part of the qemu command line (what makes the machine), for the manifest. */
function qemuTopologyArgs(topology: Topology): string[] {
  const all = buildQemuArgs(resolveTopology(topology), {
    kernel: '',
    initrd: '',
    shareDir: '',
    consoleFile: '',
    accel: 'tcg',
  });
  const end = all.indexOf('-kernel');
  return all
    .slice(0, end)
    .filter((a, i, xs) => a !== '-accel' && a !== '-cpu' && xs[i - 1] !== '-accel' && xs[i - 1] !== '-cpu');
}

function qemuVersion(): string {
  return (
    spawnSync('qemu-system-x86_64', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0]?.trim() ?? 'unknown'
  );
}

const WORKLOADS_TEXT =
  ', with three workloads (remote-app: CPUs on node 0, memory bound to node 1; local-app; spread-app: interleaved)';

function manifest(
  argv: readonly string[],
  name: string,
  topology: Topology,
  snapDir: string,
  kernel: string,
): Record<string, unknown> {
  const snap = existsSync(join(snapDir, 'manifest.json'))
    ? (JSON.parse(readFileSync(join(snapDir, 'manifest.json'), 'utf8')) as Record<string, unknown>)
    : {};
  return {
    ...snap,
    name,
    description: `QEMU lab guest: ${describeTopology(resolveTopology(topology))}${argv.includes('--processes') ? WORKLOADS_TEXT : ''}`,
    synthetic: false,
    source: 'captured in the numakit lab (QEMU)',
    date: new Date().toISOString(),
    kernel,
    qemu: { version: qemuVersion(), accel: ensureLabAssets().accel, args: qemuTopologyArgs(topology).join(' ') },
    topology,
    capturedWith: `npm run capture -- ${argv.join(' ')}`,
  };
}

async function main(argv: readonly string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    return 0;
  }
  const force = argv.includes('--force');
  const processes = argv.includes('--processes');
  const args = parseLabArgs(
    argv.filter((a) => a !== '--force' && a !== '--processes'),
    ['--name', '--out', '--kernel'],
  );
  const kernelSeries = args.extra.get('--kernel') ?? DEFAULT_KERNEL;
  if (!isKernelSeries(kernelSeries))
    throw new Error(`--kernel: expected ${KERNEL_SERIES.join(' or ')}, got '${kernelSeries}'`);
  const name = args.extra.get('--name');
  if (!name || !/^[a-z0-9][a-z0-9-]*$/.test(name))
    throw new Error('--name NAME is required (lowercase letters, digits, dashes)');
  const dest = args.extra.get('--out') ?? join(REPO_ROOT, 'examples', name);
  if (existsSync(dest) && !force)
    throw new Error(`${relative(process.cwd(), dest)} exists (add --force to replace it)`);
  const out = mkdtempSync(join(tmpdir(), 'numakit-capture-'));
  try {
    console.error(`capture: ${describeTopology(resolveTopology(args.topology))}`);
    const r = await runInGuest(args.topology, processes ? GUEST_COMMAND_PROCESSES : GUEST_COMMAND, {
      outDir: out,
      timeoutMs: args.timeoutMs ?? 300_000,
      kernel: kernelSeries,
    });
    if (r.code !== 0) {
      console.error(describeGuestFailure('numakit snapshot in the guest', r, r.log));
      return 1;
    }
    const kernel = readFileSync(join(out, 'kernel.txt'), 'utf8').trim();
    rmSync(dest, { recursive: true, force: true });
    cpSync(join(out, 'snap'), dest, { recursive: true, verbatimSymlinks: true });
    writeFileSync(
      join(dest, 'manifest.json'),
      JSON.stringify(manifest(argv, name, args.topology, join(out, 'snap'), kernel), null, 2) + '\n',
    );
    console.error(
      `capture: wrote ${relative(process.cwd(), dest)} (kernel ${kernel}, ${(r.durationMs / 1000).toFixed(1)} s)`,
    );
    return 0;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`capture: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(2);
  },
);
