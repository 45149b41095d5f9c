// The guest kernels: Debian's linux-image-<abi>-amd64 (not -cloud-amd64, which has no 9p), unpacked
// with dpkg-deb into .lab-cache/, depmod'ed, and its bzImage turned into a plain ELF vmlinux so
// QEMU boots it directly through PVH (LAB.md: ~3 s for a whole run instead of ~6 s).
// Two series: 6.1 (Debian 12, the host's own apt sources; the default) and 6.12 (Debian 13,
// fetched through a private apt directory in the cache, so the host's sources never change).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LabSetupError, run } from './exec.js';

export type KernelSeries = '6.1' | '6.12';
export const KERNEL_SERIES: readonly KernelSeries[] = ['6.1', '6.12'];
export const DEFAULT_KERNEL: KernelSeries = '6.1';

export interface LabKernel {
  readonly abi: string;
  readonly series: KernelSeries;
  /** The unpacked package root (boot/, lib/modules/<abi>/). */
  readonly root: string;
  readonly vmlinux: string;
  readonly modulesDir: string;
}

const XZ_MAGIC = Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]);
const ZSTD_MAGIC = Buffer.from([0x28, 0xb5, 0x2f, 0xfd]);
const ELF_MAGIC = Buffer.from([0x7f, 0x45, 0x4c, 0x46]);
const KEYRING = '/usr/share/keyrings/debian-archive-keyring.gpg';
const DEFAULT_MIRROR = 'http://deb.debian.org/debian';

export function isKernelSeries(s: string): s is KernelSeries {
  return (KERNEL_SERIES as readonly string[]).includes(s);
}

/** True when `abi` (e.g. "6.1.0-57-amd64", "6.12.117+deb13-amd64") belongs to `series`. */
export function abiInSeries(abi: string, series: KernelSeries): boolean {
  return abi.startsWith(`${series}.`);
}

/** The newest ABI of `series` among the cache's entry names (kernel-ABI), or undefined. */
export function pickCachedAbi(entries: readonly string[], series: KernelSeries): string | undefined {
  const abis = entries
    .filter((d) => d.startsWith('kernel-'))
    .map((d) => d.slice('kernel-'.length))
    .filter((abi) => abiInSeries(abi, series));
  return abis.sort((a, b) => b.localeCompare(a, undefined, { numeric: true }))[0];
}

/**
 * Debian's main archive as the host's apt sources name it (deb822 `URIs:` or a one-line `deb`),
 * so the trixie fetch uses the same mirror; security and update archives are skipped.
 */
export function debianMirror(sources: string): string {
  for (const m of sources.matchAll(/^(?:URIs:\s*|deb\s+(?:\[[^\]]*\]\s+)?)(\S+)/gm)) {
    const uri = (m[1] ?? '').replace(/\/+$/, '');
    if (/\/debian$/.test(uri)) return uri;
  }
  return DEFAULT_MIRROR;
}

function hostSources(): string {
  const files = ['/etc/apt/sources.list'];
  const dir = '/etc/apt/sources.list.d';
  if (existsSync(dir))
    files.push(
      ...readdirSync(dir)
        .filter((f) => /\.(list|sources)$/.test(f))
        .map((f) => join(dir, f)),
    );
  return files.map((f) => (existsSync(f) ? readFileSync(f, 'utf8') : '')).join('\n');
}

/** apt-get/apt-cache options for the series: none for 6.1 (the host's Debian 12), a private tree for 6.12. */
function aptOptions(cache: string, series: KernelSeries): string[] {
  if (series === '6.1') return [];
  const dir = join(cache, 'apt-trixie');
  const list = join(dir, 'sources.list');
  if (!existsSync(list)) {
    if (!existsSync(KEYRING))
      throw new LabSetupError(`the 6.12 kernel needs ${KEYRING} (apt-get install debian-archive-keyring)`);
    for (const d of ['lists/partial', 'cache/archives/partial']) mkdirSync(join(dir, d), { recursive: true });
    writeFileSync(list, `deb [signed-by=${KEYRING}] ${debianMirror(hostSources())} trixie main\n`);
  }
  const opts = [
    `-o=Dir::Etc::sourcelist=${list}`,
    '-o=Dir::Etc::sourceparts=-',
    `-o=Dir::State::Lists=${join(dir, 'lists')}`,
    `-o=Dir::Cache=${join(dir, 'cache')}`,
  ];
  if (!readdirSync(join(dir, 'lists')).some((f) => f.endsWith('_Packages')))
    run('apt-get', ['update', '-q', ...opts], { what: 'apt-get update (trixie, private lists)' });
  return opts;
}

/** The ABI that linux-image-amd64 depends on in the series' suite, e.g. "6.1.0-57-amd64". */
function resolveAbi(series: KernelSeries, apt: readonly string[]): string {
  const r = spawnSync('apt-cache', [...apt, 'depends', 'linux-image-amd64'], { encoding: 'utf8' });
  const m = /Depends:\s+linux-image-(\d[^\s]*-amd64)\b/.exec(r.stdout ?? '');
  if (!m?.[1] || !abiInSeries(m[1], series))
    throw new LabSetupError(
      `cannot resolve linux-image-amd64 to a ${series} kernel (run apt-get update, or set LAB_KERNEL_ABI)`,
    );
  return m[1];
}

function downloadDeb(cache: string, abi: string, apt: readonly string[]): string {
  const dir = join(cache, 'debs');
  mkdirSync(dir, { recursive: true });
  const pkg = `linux-image-${abi}`;
  // apt-get download may write '+' in a name as %2b.
  const find = () => readdirSync(dir).find((f) => decodeURIComponent(f).startsWith(`${pkg}_`) && f.endsWith('.deb'));
  const have = find();
  if (have) return join(dir, have);
  run('apt-get', [...apt, 'download', '-q', pkg], { cwd: dir, what: `apt-get download ${pkg}` });
  const got = find();
  if (!got) throw new LabSetupError(`apt-get download ${pkg} produced no .deb in ${dir}`);
  return join(dir, got);
}

/** The virtio NIC's driver and what it depends on, for guests with a network (GuestOptions.sshPort). */
const NET_PARTS = [
  'kernel/drivers/net/virtio_net.ko*',
  'kernel/drivers/net/net_failover.ko*',
  'kernel/net/core/failover.ko*',
];

/** Where the package keeps its modules: ./lib/modules (Debian 12) or ./usr/lib/modules (Debian 13, merged /usr). */
function modulesPrefix(deb: string): string {
  const listing = run('dpkg-deb', ['-c', deb], { what: 'listing the kernel package' });
  return /\s\.\/usr\/lib\/modules\//.test(listing) ? './usr/lib/modules' : './lib/modules';
}

/**
 * Unpacks only what the lab needs: the bzImage and the module tree's fs/, net/9p, virtio parts.
 * Debian 13 ships modules as .ko.xz, which busybox's insmod cannot load: they are decompressed
 * before depmod, so modules.dep names plain .ko files in both series.
 */
function unpack(deb: string, dest: string, abi: string, extra: readonly string[] = []): void {
  const tmp = `${dest}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  try {
    const mods = modulesPrefix(deb);
    const parts = ['modules.*', 'kernel/fs/*', 'kernel/net/9p/*', 'kernel/drivers/virtio/*', ...extra].map(
      (p) => `${mods}/*/${p}`,
    );
    const quoted = ['./boot/vmlinuz-*', ...parts].map((p) => `'${p}'`).join(' ');
    run('sh', ['-c', `dpkg-deb --fsys-tarfile '${deb}' | tar -x --wildcards -C '${tmp}' ${quoted}`], {
      what: 'unpacking the kernel package',
    });
    if (mods !== './lib/modules') {
      mkdirSync(join(tmp, 'lib'), { recursive: true });
      renameSync(join(tmp, mods), join(tmp, 'lib', 'modules'));
      rmSync(join(tmp, 'usr'), { recursive: true, force: true });
    }
    run('sh', ['-c', `find '${tmp}/lib/modules' -name '*.ko.xz' -exec xz -d {} +`], {
      what: 'decompressing .ko.xz modules',
    });
    run('depmod', ['-b', tmp, abi], { what: 'depmod' });
    writeFileSync(join(tmp, 'vmlinux'), extractVmlinux(readFileSync(join(tmp, 'boot', `vmlinuz-${abi}`))));
    rmSync(dest, { recursive: true, force: true });
    renameSync(tmp, dest);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The compressed kernel's stream formats: Debian 12 compresses with xz, Debian 13 with zstd. */
const STREAMS = [
  { magic: XZ_MAGIC, cmd: 'xz', args: ['-dc', '--single-stream'] },
  { magic: ZSTD_MAGIC, cmd: 'zstd', args: ['-dc'] },
] as const;

/**
 * The plain ELF kernel inside a bzImage (what the kernel tree's scripts/extract-vmlinux does):
 * find a compressed stream and decompress it. xz stops at the end of the first stream; zstd
 * complains about the bytes after its frame and exits non-zero, but has written the kernel by
 * then, so the ELF magic is what is checked.
 */
export function extractVmlinux(bzImage: Buffer): Buffer {
  for (const { magic, cmd, args } of STREAMS) {
    for (let at = bzImage.indexOf(magic); at >= 0; at = bzImage.indexOf(magic, at + 1)) {
      const r = spawnSync(cmd, args, { input: bzImage.subarray(at), maxBuffer: 1 << 30 });
      if (r.stdout && r.stdout.length > 4 && r.stdout.subarray(0, 4).equals(ELF_MAGIC)) return r.stdout;
    }
  }
  throw new LabSetupError(
    'no xz- or zstd-compressed ELF kernel found in the bzImage (are xz-utils and zstd installed?)',
  );
}

/** LAB_KERNEL_ABI when it belongs to `series`, else the newest cached kernel of the series, else apt's. */
function chooseAbi(cache: string, series: KernelSeries): string {
  const pinned = process.env['LAB_KERNEL_ABI'];
  if (pinned && abiInSeries(pinned, series)) return pinned;
  const entries = existsSync(cache) ? readdirSync(cache).filter((d) => existsSync(join(cache, d, 'vmlinux'))) : [];
  return pickCachedAbi(entries, series) ?? resolveAbi(series, aptOptions(cache, series));
}

/**
 * Ensures a usable kernel of `series` in the cache and returns its paths. With `net`, the same
 * kernel in its own tree (netkernel-ABI) that also holds the virtio NIC driver: a tree other
 * guests use is never changed in place.
 */
export function ensureKernel(cache: string, opts: { net?: boolean; series?: KernelSeries } = {}): LabKernel {
  const series = opts.series ?? DEFAULT_KERNEL;
  const abi = chooseAbi(cache, series);
  const root = join(cache, `${opts.net ? 'netkernel' : 'kernel'}-${abi}`);
  if (!existsSync(join(root, 'vmlinux'))) {
    const apt = abiInSeries(abi, '6.1') ? [] : aptOptions(cache, series);
    unpack(downloadDeb(cache, abi, apt), root, abi, opts.net ? NET_PARTS : []);
  }
  return { abi, series, root, vmlinux: join(root, 'vmlinux'), modulesDir: join(root, 'lib', 'modules', abi) };
}
