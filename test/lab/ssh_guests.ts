// Guests reachable over SSH, for tests that drive them from the host (Ansible): each boots
// with a NIC whose only way in is 127.0.0.1:PORT (QEMU user networking, restrict=on,
// hostfwd to port 22), starts the host's sshd (openssh-server, seen through the 9p root)
// with a key made for the run, and stays up until the host runs `lab-release` over SSH.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInGuest, shellQuote, type GuestResult } from './guest.js';
import type { Topology } from './topology.js';

export interface SshGuest {
  readonly name: string;
  readonly port: number;
  readonly done: Promise<GuestResult>;
}

export interface SshGuests {
  readonly guests: SshGuest[];
  readonly keyFile: string;
  /** Runs a command on a guest; null status when SSH itself failed. */
  ssh(g: SshGuest, command: string): { status: number | null; stdout: string; stderr: string };
  /** Lets every guest power off and waits for them. */
  release(): Promise<GuestResult[]>;
}

/** A free TCP port on 127.0.0.1 (bound, then closed: QEMU binds it a moment later). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export const SSH_OPTS = [
  '-o',
  'StrictHostKeyChecking=no',
  '-o',
  'UserKnownHostsFile=/dev/null',
  '-o',
  'LogLevel=ERROR',
  '-o',
  'ConnectTimeout=10',
  '-o',
  'BatchMode=yes',
];

// Root's shell start-up files are removed (in the guest's overlay only), as on a host that was
// just installed: the guest sees the host's own /root through the 9p root, and bash sources its
// .bashrc for every command sshd runs (the development VM's runs `pyenv init`: 45 s per SSH
// command under TCG at load average 15, 5.5 s without). /root stays on the root file system (not
// a tmpfs), so that Ansible's temporary files under ~/.ansible move into place by rename, as on
// a real host, rather than being copied. The guest waits for lab-release on a FIFO in its own /run: no process every second
// (polling with sleep cost each idle TCG guest a fifth of a host core), and no name in /tmp,
// which the guest shares with the host's.
function guestScript(name: string, pubKey: string, setup: string): string {
  return `set -e
hostname ${shellQuote(name)}
rm -f /root/.bashrc /root/.profile /root/.bash_profile /root/.bash_login /root/.bash_logout
mkdir -p /run/sshd /root/.ssh && chmod 700 /root/.ssh
echo ${shellQuote(pubKey)} > /root/.ssh/authorized_keys && chmod 600 /root/.ssh/authorized_keys
mkfifo /run/lab-release
printf '#!/bin/sh\\necho released 1<>/run/lab-release\\n' > /usr/local/bin/lab-release && chmod 755 /usr/local/bin/lab-release
${setup}
/usr/sbin/sshd -o UsePAM=no -o PasswordAuthentication=no -o PermitRootLogin=prohibit-password -o UseDNS=no
echo "sshd up on ${name}"
read -r _ < /run/lab-release`;
}

/** Boots the guests in parallel and waits until each answers over SSH. */
export async function bootSshGuests(
  specs: readonly { name: string; topology: Topology; setup?: string }[],
  timeoutMs: number,
): Promise<SshGuests> {
  if (spawnSync('sh', ['-c', 'command -v ssh && test -x /usr/sbin/sshd'], { stdio: 'ignore' }).status !== 0) {
    throw new Error(
      'SSH guests need ssh and /usr/sbin/sshd on the host (apt-get install openssh-client openssh-server)',
    );
  }
  const keyDir = mkdtempSync(join(tmpdir(), 'numakit-lab-ssh-'));
  const keyFile = join(keyDir, 'id');
  spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', keyFile]);
  const pub = readFileSync(`${keyFile}.pub`, 'utf8').trim();
  const guests: SshGuest[] = [];
  for (const s of specs) {
    const port = await freePort();
    guests.push({
      name: s.name,
      port,
      done: runInGuest(s.topology, guestScript(s.name, pub, s.setup ?? ''), { sshPort: port, timeoutMs }),
    });
  }
  const ssh = (g: SshGuest, command: string) => {
    const r = spawnSync('ssh', ['-i', keyFile, '-p', String(g.port), ...SSH_OPTS, 'root@127.0.0.1', command], {
      encoding: 'utf8',
      timeout: 300_000,
    });
    return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
  };
  const release = async () => {
    for (const g of guests) ssh(g, 'lab-release');
    const results = await Promise.all(guests.map((g) => g.done));
    rmSync(keyDir, { recursive: true, force: true });
    return results;
  };
  const deadline = Date.now() + timeoutMs;
  for (const g of guests) {
    let up = false;
    while (!up && Date.now() < deadline) {
      const finished = await Promise.race([
        g.done.then(() => true),
        new Promise<false>((r) => setTimeout(() => r(false), 2000)),
      ]);
      if (finished) {
        const r = await g.done;
        await release();
        throw new Error(
          `guest ${g.name} ended before SSH answered (code ${r.code}):\n${r.stderr}\n${r.log.slice(-3000)}`,
        );
      }
      up = ssh(g, 'true').status === 0;
    }
    if (!up) {
      await release();
      throw new Error(`guest ${g.name}: no SSH on 127.0.0.1:${g.port} within ${timeoutMs / 1000} s`);
    }
  }
  return { guests, keyFile, ssh, release };
}
