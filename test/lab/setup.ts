// Everything a guest boot needs, set up once per process from Debian packages and cached in
// .lab-cache/ (LAB_CACHE overrides the location).
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { detectAccel } from './accel.js';
import { LabSetupError, hasCommand } from './exec.js';
import { ensureInitramfs } from './initramfs.js';
import { DEFAULT_KERNEL, ensureKernel, type KernelSeries } from './kernel.js';
import type { Accel } from './qemu_args.js';

export interface LabAssets {
  readonly qemu: string;
  readonly kernel: string;
  readonly kernelAbi: string;
  readonly kernelSeries: KernelSeries;
  readonly initrd: string;
  readonly accel: Accel;
}

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const QEMU = 'qemu-system-x86_64';
const NEEDED = [QEMU, 'dpkg-deb', 'depmod', 'xz', 'cpio', 'timeout'];

const cached = new Map<string, LabAssets>();

export function labCacheDir(): string {
  return process.env['LAB_CACHE'] ?? join(REPO_ROOT, '.lab-cache');
}

/**
 * Throws LabSetupError (one line) when the lab cannot run here; never skips silently. `net`: a NIC
 * driver too; `kernel`: the kernel series (default 6.1, whatever else the cache holds).
 */
export function ensureLabAssets(opts: { net?: boolean; kernel?: KernelSeries } = {}): LabAssets {
  const net = opts.net === true;
  const series = opts.kernel ?? DEFAULT_KERNEL;
  const key = `${series}/${net}`;
  const have = cached.get(key);
  if (have) return have;
  const missing = NEEDED.filter((c) => !hasCommand(c));
  if (missing.length > 0) {
    throw new LabSetupError(
      `the lab needs ${missing.join(', ')} (apt-get install qemu-system-x86 kmod xz-utils cpio busybox-static)`,
    );
  }
  const cache = labCacheDir();
  mkdirSync(cache, { recursive: true });
  const kernel = ensureKernel(cache, { net, series });
  const initrd = ensureInitramfs(cache, kernel, { net });
  const assets: LabAssets = {
    qemu: QEMU,
    kernel: kernel.vmlinux,
    kernelAbi: kernel.abi,
    kernelSeries: series,
    initrd,
    accel: detectAccel(),
  };
  cached.set(key, assets);
  return assets;
}
