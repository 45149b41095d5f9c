// Everything a guest boot needs, set up once per process from Debian packages and cached in
// .lab-cache/ (LAB_CACHE overrides the location).
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { detectAccel } from './accel.js';
import { LabSetupError, hasCommand } from './exec.js';
import { ensureInitramfs } from './initramfs.js';
import { ensureKernel } from './kernel.js';
import type { Accel } from './qemu_args.js';

export interface LabAssets {
  readonly qemu: string;
  readonly kernel: string;
  readonly kernelAbi: string;
  readonly initrd: string;
  readonly accel: Accel;
}

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const QEMU = 'qemu-system-x86_64';
const NEEDED = [QEMU, 'dpkg-deb', 'depmod', 'xz', 'cpio', 'timeout'];

let cached: LabAssets | undefined;

export function labCacheDir(): string {
  return process.env['LAB_CACHE'] ?? join(REPO_ROOT, '.lab-cache');
}

/** Throws LabSetupError (one line) when the lab cannot run here; never skips silently. */
export function ensureLabAssets(): LabAssets {
  if (cached) return cached;
  const missing = NEEDED.filter((c) => !hasCommand(c));
  if (missing.length > 0) {
    throw new LabSetupError(`the lab needs ${missing.join(', ')} (apt-get install qemu-system-x86 kmod xz-utils cpio busybox-static)`);
  }
  const cache = labCacheDir();
  mkdirSync(cache, { recursive: true });
  const kernel = ensureKernel(cache);
  const initrd = ensureInitramfs(cache, kernel);
  cached = { qemu: QEMU, kernel: kernel.vmlinux, kernelAbi: kernel.abi, initrd, accel: detectAccel() };
  return cached;
}
