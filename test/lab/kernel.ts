// The guest kernel: Debian's linux-image-<abi>-amd64 (not -cloud-amd64, which has no 9p), unpacked
// with dpkg-deb into .lab-cache/, depmod'ed, and its bzImage turned into a plain ELF vmlinux so
// QEMU boots it directly through PVH (LAB.md: ~3 s for a whole run instead of ~6 s).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LabSetupError, run } from './exec.js';

export interface LabKernel {
  readonly abi: string;
  /** The unpacked package root (boot/, lib/modules/<abi>/). */
  readonly root: string;
  readonly vmlinux: string;
  readonly modulesDir: string;
}

const XZ_MAGIC = Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]);
const ELF_MAGIC = Buffer.from([0x7f, 0x45, 0x4c, 0x46]);

/** The ABI that linux-image-amd64 currently depends on, e.g. "6.1.0-57-amd64". */
function resolveAbi(): string {
  const r = spawnSync('apt-cache', ['depends', 'linux-image-amd64'], { encoding: 'utf8' });
  const m = /Depends:\s+linux-image-(\d[^\s]*-amd64)\b/.exec(r.stdout ?? '');
  if (!m?.[1]) throw new LabSetupError('cannot resolve linux-image-amd64 (run apt-get update, or set LAB_KERNEL_ABI)');
  return m[1];
}

/** A kernel already unpacked in the cache, newest first, so an offline re-run needs no apt. */
function cachedAbi(cache: string): string | undefined {
  if (!existsSync(cache)) return undefined;
  const abis = readdirSync(cache)
    .filter((d) => d.startsWith('kernel-') && existsSync(join(cache, d, 'vmlinux')))
    .map((d) => d.slice('kernel-'.length));
  return abis.sort((a, b) => b.localeCompare(a, undefined, { numeric: true }))[0];
}

function downloadDeb(cache: string, abi: string): string {
  const dir = join(cache, 'debs');
  mkdirSync(dir, { recursive: true });
  const pkg = `linux-image-${abi}`;
  const find = () => readdirSync(dir).find((f) => f.startsWith(`${pkg}_`) && f.endsWith('.deb'));
  const have = find();
  if (have) return join(dir, have);
  run('apt-get', ['download', '-q', pkg], { cwd: dir, what: `apt-get download ${pkg}` });
  const got = find();
  if (!got) throw new LabSetupError(`apt-get download ${pkg} produced no .deb in ${dir}`);
  return join(dir, got);
}

/** The virtio NIC's driver and what it depends on, for guests with a network (GuestOptions.sshPort). */
const NET_PARTS = [
  './lib/modules/*/kernel/drivers/net/virtio_net.ko',
  './lib/modules/*/kernel/drivers/net/net_failover.ko',
  './lib/modules/*/kernel/net/core/failover.ko',
];

/** Unpacks only what the lab needs: the bzImage and the module tree's fs/, net/9p, virtio parts. */
function unpack(deb: string, dest: string, abi: string, extra: readonly string[] = []): void {
  const tmp = `${dest}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const parts = [
    './boot/vmlinuz-*',
    './lib/modules/*/modules.*',
    './lib/modules/*/kernel/fs/*',
    './lib/modules/*/kernel/net/9p/*',
    './lib/modules/*/kernel/drivers/virtio/*',
    ...extra,
  ];
  const quoted = parts.map((p) => `'${p}'`).join(' ');
  run('sh', ['-c', `dpkg-deb --fsys-tarfile '${deb}' | tar -x --wildcards -C '${tmp}' ${quoted}`], {
    what: 'unpacking the kernel package',
  });
  run('depmod', ['-b', tmp, abi], { what: 'depmod' });
  writeFileSync(join(tmp, 'vmlinux'), extractVmlinux(readFileSync(join(tmp, 'boot', `vmlinuz-${abi}`))));
  rmSync(dest, { recursive: true, force: true });
  renameSync(tmp, dest);
}

/**
 * The plain ELF kernel inside a bzImage (what the kernel tree's scripts/extract-vmlinux does):
 * find the xz stream and decompress it; xz stops at the end of the first stream.
 */
export function extractVmlinux(bzImage: Buffer): Buffer {
  for (let at = bzImage.indexOf(XZ_MAGIC); at >= 0; at = bzImage.indexOf(XZ_MAGIC, at + 1)) {
    const r = spawnSync('xz', ['-dc', '--single-stream'], { input: bzImage.subarray(at), maxBuffer: 1 << 30 });
    if (r.stdout && r.stdout.length > 4 && r.stdout.subarray(0, 4).equals(ELF_MAGIC)) return r.stdout;
  }
  throw new LabSetupError('no xz-compressed ELF kernel found in the bzImage (is xz-utils installed?)');
}

/**
 * Ensures a usable kernel in the cache and returns its paths. With `net`, the same kernel in
 * its own tree (netkernel-ABI) that also holds the virtio NIC driver: a tree other guests use
 * is never changed in place.
 */
export function ensureKernel(cache: string, opts: { net?: boolean } = {}): LabKernel {
  const abi = process.env['LAB_KERNEL_ABI'] ?? cachedAbi(cache) ?? resolveAbi();
  const root = join(cache, `${opts.net ? 'netkernel' : 'kernel'}-${abi}`);
  if (!existsSync(join(root, 'vmlinux'))) unpack(downloadDeb(cache, abi), root, abi, opts.net ? NET_PARTS : []);
  return { abi, root, vmlinux: join(root, 'vmlinux'), modulesDir: join(root, 'lib', 'modules', abi) };
}
