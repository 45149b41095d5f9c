// sd_notify(3) without libsystemd: one datagram to the unix socket systemd names in
// NOTIFY_SOCKET ("READY=1", "WATCHDOG=1", "STOPPING=1", "STATUS=..."), for Type=notify and
// WatchdogSec= (contrib/numakit-agent.service). Node has no unix datagram sockets, so the
// datagram goes through koffi's socket()/sendto() (koffi is loaded by the agent anyway).
// Not `systemd-notify`: a message from a helper that has already exited may not be
// attributed to the unit (systemd looks the sender's cgroup up after the fact; sd_notify(3),
// "NotifyAccess="), and a process per watchdog ping is what the watchdog should not depend on.
import { libc, fail } from './libc.js';

const AF_UNIX = 1;
const SOCK_DGRAM = 2;
const SOCK_CLOEXEC = 0o2000000;
const MSG_NOSIGNAL = 0x4000;
const SUN_PATH_MAX = 108;

/**
 * The sockaddr_un for NOTIFY_SOCKET: a path ("/run/systemd/notify") or, with a leading "@", a
 * name in the abstract namespace (no trailing NUL, the length says where it ends). Null when
 * unset or empty; throws on a name that cannot be a unix socket address.
 */
export function notifyAddress(value: string | undefined): Buffer | null {
  if (value === undefined || value === '') return null;
  if (value[0] !== '/' && value[0] !== '@')
    throw new Error(`NOTIFY_SOCKET ${value}: expected an absolute path or @abstract name`);
  const name = Buffer.from(value[0] === '@' ? `\0${value.slice(1)}` : `${value}\0`, 'utf8');
  if (name.length > SUN_PATH_MAX) throw new Error(`NOTIFY_SOCKET ${value}: longer than ${SUN_PATH_MAX} bytes`);
  const addr = Buffer.alloc(2 + name.length);
  addr.writeUInt16LE(AF_UNIX, 0);
  name.copy(addr, 2);
  return addr;
}

/** Half of WATCHDOG_USEC in ms (sd_watchdog_enabled(3)'s advice), when it is meant for this pid; else null. */
export function watchdogPingMs(env: NodeJS.ProcessEnv, pid: number): number | null {
  const usec = Number(env.WATCHDOG_USEC);
  if (!Number.isFinite(usec) || usec <= 0) return null;
  if (env.WATCHDOG_PID !== undefined && Number(env.WATCHDOG_PID) !== pid) return null;
  return Math.max(1, Math.floor(usec / 2000));
}

export interface Notifier {
  /** Sends one state ("READY=1\nSTATUS=..."); throws a NativeError naming sendto on failure. */
  send(state: string): void;
  close(): void;
}

/** A notifier for NOTIFY_SOCKET, or null when systemd did not ask for notifications. */
export function openNotifier(env: NodeJS.ProcessEnv = process.env): Notifier | null {
  const addr = notifyAddress(env.NOTIFY_SOCKET);
  if (addr === null) return null;
  const c = libc();
  const fd = c.socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0) as number;
  if (fd < 0) fail('socket');
  return {
    send(state) {
      const msg = Buffer.from(state, 'utf8');
      if ((c.sendto(fd, msg, msg.length, MSG_NOSIGNAL, addr, addr.length) as number) < 0) fail('sendto');
    },
    close: () => void c.close(fd),
  };
}
