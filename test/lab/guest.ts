// runInGuest: boot a QEMU guest with a NUMA topology, run one bash command in the current
// directory (the host's / is the guest's root, read-only under a tmpfs overlay), return its
// output and exit code. qemu always ends: at the timeout its process group is SIGKILLed, and
// `timeout -s KILL` around it ends it even if this Node process dies first.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { KernelSeries } from './kernel.js';
import { waitGroupGone } from './procs.js';
import { buildQemuArgs } from './qemu_args.js';
import { ensureLabAssets } from './setup.js';
import { writeLabUnits } from './systemd_guest.js';
import { resolveTopology, type ResolvedTopology, type Topology } from './topology.js';

export interface GuestOptions {
  /** Kill the guest after this long (default 180 s; LAB_TIMEOUT_MS overrides the default). */
  readonly timeoutMs?: number;
  /** Directory the command starts in (default: process.cwd()); the same path inside the guest. */
  readonly cwd?: string;
  /** Extra environment for the command (the host's environment is not passed through). */
  readonly env?: Readonly<Record<string, string>>;
  /** Host directory that receives what the command wrote under $LAB_OUT in the guest. */
  readonly outDir?: string;
  /** A NIC reachable only from 127.0.0.1:sshPort on the host (to the guest's port 22). */
  readonly sshPort?: number;
  /**
   * PID 1 of the guest: the initramfs's busybox script (default), or the host's systemd, which
   * runs the command as a service and can start units (test/lab/systemd_guest.ts).
   */
  readonly init?: 'busybox' | 'systemd';
  /** The guest's kernel: Debian 12's 6.1 series (default) or Debian 13's 6.12 (docs/lab.md). */
  readonly kernel?: KernelSeries;
}

export interface GuestResult {
  /** The command's exit code; null when it never finished (timeout, boot failure, panic). */
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
  /** The guest's serial console (kernel + init messages) and qemu's own stderr. */
  readonly log: string;
  readonly durationMs: number;
  readonly topology: ResolvedTopology;
  /** qemu's process group (already ended when the promise resolves). */
  readonly pgid: number;
  /** `uname -r` of the kernel the guest booted. */
  readonly kernelAbi: string;
}

/**
 * A guest whose init has not said INIT_MARK on the console by then never booted: it is killed
 * and booted once more. The kernel reaches init in 2-17 s under TCG (docs/lab.md).
 * LAB_BOOT_WITHIN_MS changes it (a tiny value shows the retry).
 */
const BOOT_WITHIN_MS = Number(process.env['LAB_BOOT_WITHIN_MS'] ?? 120_000);
const INIT_MARK = 'lab-init:';

interface BootWatch {
  readonly consoleFile: string;
  readonly withinMs: number;
}

/** Inside the guest: the read-write share, and where a command leaves files for the host. */
export const GUEST_SHARE = '/run/lab';
export const GUEST_OUT = '/run/lab/out';
const DEFAULT_TIMEOUT_MS = Number(process.env['LAB_TIMEOUT_MS'] ?? 180_000);

const liveGroups = new Set<number>();
const liveShares = new Set<string>();
process.on('exit', () => {
  for (const pgid of liveGroups) killGroup(pgid);
  for (const dir of liveShares) rmSync(dir, { recursive: true, force: true });
});
// qemu runs in its own process group, so Ctrl-C or a test runner's SIGTERM does not reach it:
// exit as the signal would have, through the 'exit' handler above that kills every live guest.
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const) {
  process.once(signal, () => process.exit(code));
}

function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // already gone
  }
}

export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

function runScript(command: string, cwd: string, env: Readonly<Record<string, string>>): string {
  const path = [
    dirname(process.execPath),
    '/usr/local/sbin',
    '/usr/local/bin',
    '/usr/sbin',
    '/usr/bin',
    '/sbin',
    '/bin',
  ].join(':');
  const vars: Record<string, string> = {
    PATH: path,
    HOME: '/root',
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    LAB_GUEST: '1',
    LAB_OUT: GUEST_OUT,
    ...(process.env['CI'] ? { CI: process.env['CI'] } : {}),
    ...env,
  };
  const exports = Object.entries(vars).map(([k, v]) => `export ${k}=${shellQuote(v)}`);
  return [...exports, `mkdir -p ${GUEST_OUT}`, `cd ${shellQuote(cwd)} || exit 125`, command, ''].join('\n');
}

function readOr(path: string): string {
  return existsSync(path) ? readFileSync(path, 'utf8') : '';
}

function collect(
  share: string,
  t: ResolvedTopology,
  extra: { timedOut: boolean; qemuErr: string; started: number; pgid: number; kernelAbi: string },
): GuestResult {
  const rc = readOr(join(share, 'rc')).trim();
  const code = !extra.timedOut && /^\d+$/.test(rc) ? Number(rc) : null;
  const log = readOr(join(share, 'console.log')) + (extra.qemuErr ? `\nqemu: ${extra.qemuErr.trim()}` : '');
  return {
    code,
    stdout: readOr(join(share, 'stdout')),
    stderr: readOr(join(share, 'stderr')),
    timedOut: extra.timedOut,
    log,
    durationMs: Date.now() - extra.started,
    topology: t,
    pgid: extra.pgid,
    kernelAbi: extra.kernelAbi,
  };
}

interface QemuExit {
  readonly timedOut: boolean;
  readonly qemuErr: string;
  readonly pgid: number;
  /** Killed because init never spoke within the boot watch. */
  readonly neverBooted: boolean;
}

/**
 * Runs qemu in its own process group under `timeout -s KILL` (which ends it even if this Node
 * process dies), SIGKILLs the group at `timeoutMs`, and resolves once no process of it is left.
 */
function runQemu(qemu: string, args: readonly string[], timeoutMs: number, boot?: BootWatch): Promise<QemuExit> {
  const backstop = String(Math.ceil(timeoutMs / 1000) + 10);
  const child = spawn('timeout', ['-s', 'KILL', backstop, qemu, ...args], {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const pgid = child.pid ?? 0;
  liveGroups.add(pgid);
  let qemuErr = '';
  let timedOut = false;
  child.stderr?.on('data', (b: Buffer) => (qemuErr += b.toString()));
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(pgid);
  }, timeoutMs);
  let neverBooted = false;
  const watch =
    boot === undefined
      ? undefined
      : setTimeout(
          () => {
            if (readOr(boot.consoleFile).includes(INIT_MARK)) return;
            neverBooted = true;
            timedOut = true;
            killGroup(pgid);
          },
          Math.min(boot.withinMs, timeoutMs),
        );
  return new Promise((resolveExit, reject) => {
    child.on('error', (e) => reject(new Error(`cannot start qemu: ${e.message}`)));
    child.on('close', () => {
      clearTimeout(timer);
      clearTimeout(watch);
      killGroup(pgid); // nothing of the group may outlive the run
      void waitGroupGone(pgid, 10_000).then((gone) => {
        liveGroups.delete(pgid);
        if (gone) resolveExit({ timedOut, qemuErr, pgid, neverBooted });
        else reject(new Error(`qemu (process group ${pgid}) did not end after SIGKILL`));
      });
    });
  });
}

/** Boots a guest with `topology`, runs `command` with bash in `cwd`, and powers it off. */
export async function runInGuest(topology: Topology, command: string, opts: GuestOptions = {}): Promise<GuestResult> {
  const t = resolveTopology(topology);
  const assets = ensureLabAssets({
    net: opts.sshPort !== undefined,
    ...(opts.kernel === undefined ? {} : { kernel: opts.kernel }),
  });
  const share = mkdtempSync(join(tmpdir(), 'numakit-lab-'));
  liveShares.add(share);
  try {
    writeFileSync(join(share, 'run.sh'), runScript(command, opts.cwd ?? process.cwd(), opts.env ?? {}));
    if (opts.init === 'systemd') writeLabUnits(share);
    const inputs = {
      kernel: assets.kernel,
      initrd: assets.initrd,
      shareDir: share,
      consoleFile: join(share, 'console.log'),
      accel: assets.accel,
      ...(opts.sshPort === undefined ? {} : { sshPort: opts.sshPort }),
    };
    const started = Date.now();
    const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    let exit = await runQemu(assets.qemu, buildQemuArgs(t, inputs), timeoutMs, {
      consoleFile: inputs.consoleFile,
      withinMs: BOOT_WITHIN_MS,
    });
    if (exit.neverBooted) {
      // Seen once on a loaded 2-core host: a TCG guest that printed nothing at all for its whole
      // timeout. Nothing of the command ran, so one more boot is safe.
      rmSync(inputs.consoleFile, { force: true });
      const again = await runQemu(
        assets.qemu,
        buildQemuArgs(t, inputs),
        Math.max(1000, timeoutMs - (Date.now() - started)),
      );
      exit = {
        ...again,
        qemuErr: `lab: init said nothing within ${BOOT_WITHIN_MS / 1000} s; booted once more\n${again.qemuErr}`,
      };
    }
    if (opts.outDir && existsSync(join(share, 'out'))) {
      mkdirSync(opts.outDir, { recursive: true });
      // verbatimSymlinks: snapshots hold relative sysfs links (class/dmi/id -> ../../devices/...);
      // by default cpSync rewrites them to absolute paths into the share, deleted below.
      cpSync(join(share, 'out'), opts.outDir, { recursive: true, verbatimSymlinks: true });
    }
    return collect(share, t, { ...exit, started, kernelAbi: assets.kernelAbi });
  } finally {
    rmSync(share, { recursive: true, force: true });
    liveShares.delete(share);
  }
}
