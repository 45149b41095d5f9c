// The guest's initramfs: busybox-static, the modules for virtio-9p and overlayfs, and an /init
// that mounts the host's / read-only over 9p under a tmpfs overlay, chroots into it, runs
// /run/lab/run.sh (written by the host into the read-write share) and powers off.
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import { LabSetupError, run } from './exec.js';
import type { LabKernel } from './kernel.js';
import { LAB_TARGET, SHARE_MASK_FILE, SHARE_UNITS_DIR, SYSTEMD_BINARY } from './systemd_guest.js';

/** Loaded with their dependencies, in modules.dep order (LAB.md). */
export const GUEST_MODULES = ['virtio_pci', '9pnet_virtio', '9p', 'overlay'] as const;
/** Added for guests with a network: the virtio NIC. */
export const NET_MODULES = ['virtio_net'] as const;
const BUSYBOX_PATHS = ['/bin/busybox', '/usr/bin/busybox'];

// devtmpfs lacks /dev/fd and /dev/std* (bash's <(...) breaks without them). /tmp is left on the
// overlay (tmpfs upper) rather than a fresh tmpfs, so a checkout that lives under /tmp stays visible.
export const INIT_SCRIPT = `#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t devtmpfs dev /dev
exec </dev/console >/dev/console 2>&1
fail() { echo "lab-init: $*"; poweroff -f; }
mount -t proc proc /proc
mount -t sysfs sys /sys
for m in $(cat /modules.load); do insmod "/modules/$m" || fail "insmod $m"; done
mkdir -p /mnt/lower /mnt/rw /mnt/root /mnt/share
O=trans=virtio,version=9p2000.L,msize=512000
mount -t 9p -o $O,cache=loose,ro hostroot /mnt/lower || fail "mount hostroot"
mount -t 9p -o $O labshare /mnt/share || fail "mount labshare"
mount -t tmpfs -o mode=0755 rw /mnt/rw
mkdir -p /mnt/rw/upper /mnt/rw/work
mount -t overlay overlay -o lowerdir=/mnt/lower,upperdir=/mnt/rw/upper,workdir=/mnt/rw/work /mnt/root || fail "mount overlay"
R=/mnt/root
mount -t proc proc $R/proc
mount -t sysfs sys $R/sys
mount -t devtmpfs dev $R/dev
mkdir -p $R/dev/pts $R/dev/shm
mount -t devpts devpts $R/dev/pts
mount -t tmpfs shm $R/dev/shm
mount -t tmpfs run $R/run
mkdir -p $R/run/lab
mount --move /mnt/share $R/run/lab
ln -sf /proc/self/fd $R/dev/fd
ln -sf /proc/self/fd/0 $R/dev/stdin
ln -sf /proc/self/fd/1 $R/dev/stdout
ln -sf /proc/self/fd/2 $R/dev/stderr
hostname numakit-lab
# QEMU user networking (guests with sshPort): the fixed addresses of its built-in DHCP.
ip link set lo up
if [ -e /sys/class/net/eth0 ]; then
  ip link set eth0 up && ip addr add 10.0.2.15/24 dev eth0 && ip route add default via 10.0.2.2 || fail "network"
fi
# A systemd guest (GuestOptions.init): the host put lab units in the share. systemd becomes PID 1
# on the overlay root, starts numakit-lab.target (the command, then power off), and nothing of the
# host's default.target. No /etc/initrd-release there, so it runs it as the real root; an empty
# fstab keeps the host's disks out of local-fs.target.
if [ -d $R/run/lab/${SHARE_UNITS_DIR} ]; then
  cp $R/run/lab/${SHARE_UNITS_DIR}/* $R/etc/systemd/system/ || fail "lab units"
  for u in $(cat $R/run/lab/${SHARE_MASK_FILE}); do ln -sf /dev/null $R/etc/systemd/system/$u; done
  : >$R/etc/fstab
  echo "lab-init: starting systemd"
  exec switch_root $R ${SYSTEMD_BINARY} --unit=${LAB_TARGET} --show-status=1 --log-target=console --log-level=notice
fi
echo "lab-init: running command"
chroot $R /bin/bash /run/lab/run.sh </dev/null >$R/run/lab/stdout 2>$R/run/lab/stderr
echo $? >$R/run/lab/rc
sync
poweroff -f
`;

function parseModulesDep(text: string): Map<string, string[]> {
  const deps = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const [mod, rest] = line.split(':');
    if (mod && rest !== undefined) deps.set(mod.trim(), rest.trim().split(/\s+/).filter(Boolean));
  }
  return deps;
}

function moduleName(path: string): string {
  return basename(path)
    .replace(/\.ko(\.[a-z]+)?$/, '')
    .replace(/-/g, '_');
}

/**
 * Module paths (relative to the modules dir) in load order: dependencies first. A wanted module
 * listed in `modulesBuiltin` (the kernel's modules.builtin) is part of the kernel and is skipped:
 * Debian 13 builds virtio_pci in, Debian 12 as a module.
 */
export function moduleLoadOrder(modulesDep: string, wanted: readonly string[], modulesBuiltin = ''): string[] {
  const deps = parseModulesDep(modulesDep);
  const builtin = new Set(modulesBuiltin.split('\n').filter(Boolean).map(moduleName));
  const byName = new Map([...deps.keys()].map((p) => [moduleName(p), p]));
  const order: string[] = [];
  const visit = (path: string): void => {
    if (order.includes(path)) return;
    for (const d of deps.get(path) ?? []) visit(d);
    order.push(path);
  };
  for (const name of wanted) {
    if (builtin.has(name.replace(/-/g, '_'))) continue;
    const path = byName.get(name.replace(/-/g, '_'));
    if (!path)
      throw new LabSetupError(`kernel module ${name} not found in modules.dep (is it built in, or the wrong kernel?)`);
    visit(path);
  }
  return order;
}

function findBusybox(): string {
  const p = BUSYBOX_PATHS.find((b) => existsSync(b));
  if (!p) throw new LabSetupError('busybox not found (apt-get install busybox-static)');
  return p;
}

function stage(dir: string, kernel: LabKernel, busybox: string, order: readonly string[]): void {
  for (const d of ['bin', 'dev', 'proc', 'sys', 'mnt', 'modules']) mkdirSync(join(dir, d), { recursive: true });
  copyFileSync(busybox, join(dir, 'bin', 'busybox'));
  chmodSync(join(dir, 'bin', 'busybox'), 0o755);
  for (const m of order) copyFileSync(join(kernel.modulesDir, m), join(dir, 'modules', basename(m)));
  writeFileSync(join(dir, 'modules.load'), order.map((m) => basename(m)).join('\n') + '\n');
  writeFileSync(join(dir, 'init'), INIT_SCRIPT, { mode: 0o755 });
}

/** Builds (or reuses) the initramfs for this kernel; its name changes with /init and the modules. */
export function ensureInitramfs(cache: string, kernel: LabKernel, opts: { net?: boolean } = {}): string {
  const busybox = findBusybox();
  const builtinFile = join(kernel.modulesDir, 'modules.builtin');
  const order = moduleLoadOrder(
    readFileSync(join(kernel.modulesDir, 'modules.dep'), 'utf8'),
    opts.net ? [...GUEST_MODULES, ...NET_MODULES] : GUEST_MODULES,
    existsSync(builtinFile) ? readFileSync(builtinFile, 'utf8') : '',
  );
  const key = createHash('sha256')
    .update(INIT_SCRIPT)
    .update(order.join(','))
    .update(readFileSync(busybox))
    .digest('hex')
    .slice(0, 12);
  const out = join(cache, `initramfs-${kernel.abi}-${key}.cpio`);
  if (existsSync(out)) return out;
  const dir = join(cache, `initramfs-staging-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  if (order.some((m) => !m.endsWith('.ko')))
    throw new LabSetupError('compressed kernel modules are not supported by the lab initramfs');
  try {
    stage(dir, kernel, busybox, order);
    run('sh', ['-c', `find . -print0 | cpio --null -o -H newc --quiet > '${out}.tmp'`], {
      cwd: dir,
      what: 'cpio (apt-get install cpio)',
    });
    renameSync(`${out}.tmp`, out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}
