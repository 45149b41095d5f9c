// npm run lab -- [topology options] -- COMMAND...
// Boots a guest with the topology, runs COMMAND in the current directory, prints its output and
// exits with its exit code (124 on timeout, 125 when the guest never ran it).
import { parseLabArgs, TOPOLOGY_HELP } from './args.js';
import { runInGuest, shellQuote } from './guest.js';
import { DEFAULT_KERNEL, isKernelSeries, KERNEL_SERIES } from './kernel.js';
import { describeTopology, resolveTopology } from './topology.js';

const USAGE = `usage: npm run lab -- [topology options] [--init systemd] [--kernel 6.12] -- COMMAND [ARG...]
One argument is run as a bash command line ('numactl -H | head'); several are quoted as argv.
--init systemd: PID 1 is the host's systemd and COMMAND a service, so it can start units
(default: the initramfs's busybox script).
--kernel 6.1|6.12: Debian 12's kernel (default) or Debian 13's, fetched into the lab cache.
Example: npm run lab -- --topology 4node-asym -- numactl --hardware

${TOPOLOGY_HELP}`;

async function main(argv: readonly string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h') || argv.length === 0) {
    console.log(USAGE);
    return argv.length === 0 ? 2 : 0;
  }
  const args = parseLabArgs(argv, ['--init', '--kernel']);
  const init = args.extra.get('--init') ?? 'busybox';
  if (init !== 'busybox' && init !== 'systemd') throw new Error(`--init: expected busybox or systemd, got '${init}'`);
  const kernel = args.extra.get('--kernel') ?? DEFAULT_KERNEL;
  if (!isKernelSeries(kernel)) throw new Error(`--kernel: expected ${KERNEL_SERIES.join(' or ')}, got '${kernel}'`);
  if (args.command.length === 0) throw new Error('no command given (put it after --)');
  const command = args.command.length === 1 ? (args.command[0] ?? '') : args.command.map(shellQuote).join(' ');
  console.error(`lab: ${describeTopology(resolveTopology(args.topology))}`);
  const r = await runInGuest(args.topology, command, { timeoutMs: args.timeoutMs, init, kernel });
  process.stdout.write(r.stdout);
  process.stderr.write(r.stderr);
  if (r.timedOut) {
    console.error(`lab: guest killed after the ${(args.timeoutMs ?? 180_000) / 1000} s timeout`);
    return 124;
  }
  if (r.code === null) {
    console.error(
      `lab: the guest never ran the command; its console:\n${r.log.trim().split('\n').slice(-30).join('\n')}`,
    );
    return 125;
  }
  console.error(`lab: kernel ${r.kernelAbi}, exit ${r.code} after ${(r.durationMs / 1000).toFixed(1)} s`);
  return r.code;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`lab: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(2);
  },
);
