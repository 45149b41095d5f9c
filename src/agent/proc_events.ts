// The kernel's process events (the netlink proc connector, drivers/connector/cn_proc.c): the
// source of the agent's watch between passes. A socket subscribed to them is told of every fork;
// a classic BPF filter attached to it keeps, in the kernel, only the forks of processes (a new
// thread's fork, exec, exit, uid and comm events, and any datagram a process sends, are dropped
// before they are queued), so a busy machine's threads never wake the agent. Waiting costs
// nothing while nothing happens: one poll(2) on a libuv pool thread, blocked in the kernel on the
// socket and on the read end of a pipe of our own. After the first fork the socket is not looked
// at for --watch (events queue in it), then drained at once without blocking: however many
// processes start, the agent wakes at most twice a --watch, and a `sleep` that has exited by then
// costs one failed open. close() writes one byte into the pipe, which ends the poll at once: a
// pool thread left blocked would hold up the process's exit (Node joins its pool before it
// exits). Needs CAP_NET_ADMIN (binding the proc connector's group and subscribing): without it
// the watch is off and the passes find new processes.
import { fail, libc } from '../native/libc.js';

const AF_NETLINK = 16;
const SOCK_DGRAM = 2;
const SOCK_CLOEXEC = 0o2000000;
const NETLINK_CONNECTOR = 11;
const CN_IDX_PROC = 1;
const CN_VAL_PROC = 1;
const PROC_CN_MCAST_LISTEN = 1;
const NLMSG_DONE = 3;
const SOL_SOCKET = 1;
const SO_ATTACH_FILTER = 26;
const SO_RCVBUF = 8;
const SO_RCVBUFFORCE = 33;
const MSG_DONTWAIT = 0x40;
const EAGAIN = 11;
const EINTR = 4;
const ENOBUFS = 105;
const O_NONBLOCK = 0o4000;
const O_CLOEXEC = 0o2000000;
const POLLIN = 1;
const PROC_EVENT_FORK = 1;

// Offsets in one datagram: struct nlmsghdr (16 bytes), struct cn_msg (20), struct proc_event
// (what, cpu, timestamp_ns, then the event's data: fork's parent_pid, parent_tgid, child_pid, child_tgid).
const NLMSG_PID = 12;
const CN_IDX = 16;
const EVENT_WHAT = 36;
const CHILD_PID = 60;
const CHILD_TGID = 64;
const FORK_END = 68;

/** A sockaddr_nl (family, pad, port id, groups). */
function netlinkAddress(portId: number, groups: number): Buffer {
  const a = Buffer.alloc(12);
  a.writeUInt16LE(AF_NETLINK, 0);
  a.writeUInt32LE(portId, 4);
  a.writeUInt32LE(groups, 8);
  return a;
}

/** One classic BPF instruction (struct sock_filter: code, jt, jf, k). */
export type Insn = readonly [code: number, jt: number, jf: number, k: number];
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JEQ_X = 0x1d;
const TAX = 0x07;
const RET_K = 0x06;
const ALL = 0xffffffff;

/**
 * The filter: of the kernel's datagrams (nlmsg_pid 0), a fork whose child is a process (child pid
 * = its thread group id) passes; everything else, and any datagram a process sent, is dropped.
 * Absolute loads read network (big-endian) order: `what` is compared byte-swapped; pid with tgid
 * compare alike.
 */
export const FORK_FILTER: readonly Insn[] = [
  [LD_W_ABS, 0, 0, NLMSG_PID],
  [JEQ_K, 0, 6, 0], // sent by a process: drop
  [LD_W_ABS, 0, 0, EVENT_WHAT],
  [JEQ_K, 0, 4, (PROC_EVENT_FORK << 24) >>> 0], // not a fork: drop
  [LD_W_ABS, 0, 0, CHILD_TGID],
  [TAX, 0, 0, 0],
  [LD_W_ABS, 0, 0, CHILD_PID],
  [JEQ_X, 0, 1, 0], // a thread: drop
  [RET_K, 0, 0, ALL],
  [RET_K, 0, 0, 0],
];

export function filterProgram(insns: readonly Insn[] = FORK_FILTER): Buffer {
  const b = Buffer.alloc(8 * insns.length);
  insns.forEach(([code, jt, jf, k], i) => {
    b.writeUInt16LE(code, i * 8);
    b[i * 8 + 2] = jt;
    b[i * 8 + 3] = jf;
    b.writeUInt32LE(k, i * 8 + 4);
  });
  return b;
}

/** The subscription: PROC_CN_MCAST_LISTEN to the proc connector, from port `portId`. */
export function listenMessage(portId: number): Buffer {
  const m = Buffer.alloc(40);
  m.writeUInt32LE(40, 0);
  m.writeUInt16LE(NLMSG_DONE, 4);
  m.writeUInt32LE(portId, NLMSG_PID);
  m.writeUInt32LE(CN_IDX_PROC, CN_IDX);
  m.writeUInt32LE(CN_VAL_PROC, CN_IDX + 4);
  m.writeUInt16LE(4, 32);
  m.writeUInt32LE(PROC_CN_MCAST_LISTEN, 36);
  return m;
}

/** What one datagram says: a new process, or nothing the watch uses (another event, a thread, a process's datagram). */
export type ProcEvent = { readonly kind: 'fork'; readonly pid: number } | null;

export function parseProcEvent(b: Buffer, n: number): ProcEvent {
  if (n < FORK_END || b.readUInt32LE(NLMSG_PID) !== 0) return null;
  if (b.readUInt32LE(CN_IDX) !== CN_IDX_PROC || b.readUInt32LE(EVENT_WHAT) !== PROC_EVENT_FORK) return null;
  const pid = b.readUInt32LE(CHILD_PID);
  return pid === b.readUInt32LE(CHILD_TGID) ? { kind: 'fork', pid } : null;
}

/** What a wait brings: new pids, 'lost' (the socket overflowed: some forks are unknown), or null (the time ran out). */
export type EventBatch = readonly number[] | 'lost' | null;

export interface ProcessEventSource {
  /**
   * Resolves once forks came (`collectMs` after the first, all of them by then) or after `ms`
   * (null), or at once when `signal` is aborted (null). Forks while nobody waits are kept.
   */
  wait(ms: number, signal: AbortSignal): Promise<EventBatch>;
  /** How long the next batch is collected after its first fork (policy/agent/watch.ts nextCollectMs). */
  collectFor(ms: number): void;
  close(): void;
}

const STOP_BYTE = Buffer.from([1]);

/**
 * The socket's receive buffer: the forks of a whole window queue in it (a fork's datagram takes
 * about 900 bytes of it). The default (net.core.rmem_default, 208 KiB) held about 230: at 40
 * short-lived processes a second, an 8 s window overflowed every time, and each look listed /proc.
 * 2 MiB holds about 2,300 (nothing is allocated until forks come). Set with SO_RCVBUFFORCE
 * (CAP_NET_ADMIN, which subscribing needs anyway), else as far as net.core.rmem_max allows.
 */
export const RCVBUF_BYTES = 2 * 1024 * 1024;

/** Most pids kept between two waits (the newest are kept; past it the batch is 'lost'). */
const KEPT_MAX = 4096;

/** The proc connector, subscribed and filtered; a NativeError naming the call that failed (EPERM: no CAP_NET_ADMIN). */
export function openProcessEvents(
  collectMs: number,
  filter: readonly Insn[] = FORK_FILTER,
): ProcessEventSource & { readonly polls: number } {
  const c = libc();
  const fd = c.socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR) as number;
  if (fd < 0) fail('socket(AF_NETLINK, NETLINK_CONNECTOR)');
  try {
    const prog = filterProgram(filter);
    if (
      (c.setsockoptFilter(fd, SOL_SOCKET, SO_ATTACH_FILTER, { len: prog.length / 8, filter: prog }, 16) as number) < 0
    )
      fail('setsockopt(SO_ATTACH_FILTER)');
    const size = Buffer.alloc(4);
    size.writeInt32LE(RCVBUF_BYTES);
    // Best effort: a smaller buffer only makes an overflow (a listing of /proc) likelier.
    if ((c.setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, size, 4) as number) < 0)
      c.setsockopt(fd, SOL_SOCKET, SO_RCVBUF, size, 4);
    if ((c.bind(fd, netlinkAddress(0, CN_IDX_PROC), 12) as number) < 0) fail('bind(proc connector)');
    const got = Buffer.alloc(12);
    if ((c.getsockname(fd, got, [12]) as number) < 0) fail('getsockname');
    const port = got.readUInt32LE(4);
    const msg = listenMessage(port);
    if ((c.sendto(fd, msg, msg.length, 0, netlinkAddress(0, 0), 12) as number) < 0) fail('sendto(proc connector)');
    const pipe = [-1, -1];
    if ((c.pipe2(pipe, O_NONBLOCK | O_CLOEXEC) as number) < 0) fail('pipe2');
    return new ProcEvents(fd, pipe as [number, number], collectMs);
  } catch (e) {
    c.close(fd);
    throw e;
  }
}

class ProcEvents implements ProcessEventSource {
  private readonly buf = Buffer.alloc(4096);
  /** struct pollfd[2] (fd, events, revents): the socket, then the stop pipe's read end. */
  private readonly fds = Buffer.alloc(16);
  private pids: number[] = [];
  private lost = false;
  /** A poll waits on the pool; a batch is being collected; it waits to be taken; the source is closed. */
  private polling = false;
  private collecting: NodeJS.Timeout | null = null;
  private ready = false;
  private closed = false;
  /** Polls that failed in a row. */
  private failures = 0;
  private waiter: ((b: EventBatch) => void) | null = null;
  /** The window of a batch when forks are not coming steadily (--watch). */
  private readonly baseMs: number;
  /** The window being collected was armed after a batch (next()), not by a fork. */
  private timed = false;
  /** Polls started on the pool (tests: a steady stream of forks starts none). */
  polls = 0;

  constructor(
    private readonly fd: number,
    private readonly stop: readonly [read: number, write: number],
    private collectMs: number,
  ) {
    this.baseMs = collectMs;
    this.fds.writeInt32LE(fd, 0);
    this.fds.writeInt16LE(POLLIN, 4);
    this.fds.writeInt32LE(stop[0], 8);
    this.fds.writeInt16LE(POLLIN, 12);
    this.poll();
  }

  collectFor(ms: number): void {
    this.collectMs = ms;
    // Set right after a batch was taken (its window armed with the last one): armed again with this.
    if (this.timed && this.collecting !== null) {
      clearTimeout(this.collecting);
      this.collecting = null;
      this.next();
    }
  }

  wait(ms: number, signal: AbortSignal): Promise<EventBatch> {
    if (this.ready || signal.aborted || this.closed) return Promise.resolve(signal.aborted ? null : this.take());
    return new Promise((resolve) => {
      const done = (b: EventBatch) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.waiter = null;
        resolve(b);
      };
      const onAbort = () => done(null);
      const timer = setTimeout(() => done(null), ms);
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiter = () => done(this.take());
    });
  }

  /** The forks kept (newest last), and the socket watched again. */
  private take(): EventBatch {
    if (!this.ready) return null;
    const b: EventBatch = this.lost ? 'lost' : this.pids;
    this.pids = [];
    this.lost = false;
    this.ready = false;
    this.next();
    return b;
  }

  /**
   * After a batch: while windows are longer than --watch (forks keep coming: a shell loop, a
   * build), the socket is only read at the end of the next window, one wake-up of the main
   * thread a window and none of the pool; a window that found nothing goes back to the poll
   * (no wake-up at all while nothing starts). Otherwise the poll waits for the first fork.
   */
  private next(): void {
    if (this.closed) return;
    this.timed = this.collectMs > this.baseMs;
    if (!this.timed) {
      this.poll();
      return;
    }
    this.collecting = setTimeout(() => {
      this.collecting = null;
      this.timed = false;
      this.drain();
      if (this.pids.length > 0 || this.lost) this.batchReady();
      else this.poll();
    }, this.collectMs);
  }

  private batchReady(): void {
    this.ready = true;
    this.waiter?.(null);
  }

  /** One poll on the pool until the socket has a datagram or close() writes into the pipe (none while a batch is collected or waits to be taken). */
  private poll(): void {
    if (this.polling || this.closed || this.collecting !== null || this.ready) return;
    this.polling = true;
    this.polls++;
    libc().poll.async(this.fds, 2, -1, (err: unknown, n: number) => {
      this.polling = false;
      if (this.closed) return this.release();
      // A failed poll (EINTR: a signal handled on the pool thread) is tried again; at once the first time.
      if (err || n < 0) {
        if (++this.failures > 1) setTimeout(() => this.poll(), 1000).unref();
        else this.poll();
        return;
      }
      this.failures = 0;
      this.drain();
      if (this.pids.length > 0 || this.lost) this.collect();
      else this.poll();
    });
  }

  private add(e: ProcEvent): void {
    if (e === null) return;
    if (this.pids.length >= KEPT_MAX) this.lost = true;
    else this.pids.push(e.pid);
  }

  /** The first fork of a batch: the rest queue in the socket for collectMs, then are read without blocking. */
  private collect(): void {
    this.collecting = setTimeout(() => {
      this.collecting = null;
      this.drain();
      this.batchReady();
    }, this.collectMs);
  }

  /** Reads every datagram queued, without blocking; an overflow (ENOBUFS) or a failed read loses forks. */
  private drain(): void {
    const c = libc();
    for (;;) {
      const n = c.recv(this.fd, this.buf, this.buf.length, MSG_DONTWAIT) as number;
      if (n >= 0) {
        this.add(parseProcEvent(this.buf, n));
        continue;
      }
      const errno = c.koffi.errno();
      if (errno === EAGAIN) return;
      if (errno === EINTR) continue;
      // ENOBUFS: the socket overflowed; anything else: what this read held is unknown. The next look lists /proc.
      this.lost = true;
      if (errno !== ENOBUFS) return;
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.collecting !== null) clearTimeout(this.collecting);
    this.collecting = null;
    this.waiter?.(null);
    // The poll on the pool returns once the pipe is readable; its callback closes the descriptors.
    if (this.polling) libc().write(this.stop[1], STOP_BYTE, 1);
    else this.release();
  }

  private release(): void {
    const c = libc();
    for (const fd of [this.fd, ...this.stop]) c.close(fd);
  }
}
