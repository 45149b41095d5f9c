// One request and its reply over a Unix stream socket, synchronously (apply and rollback are
// synchronous; Node's net is not): connect, write the request, read until the peer closes.
// irqbalance's socket (/run/irqbalance/irqbalancePID.sock) answers one command a connection
// and then closes it (irqbalance.c, sock_handle). A receive timeout bounds a peer that hangs.
import { fail, libc } from './libc.js';

const AF_UNIX = 1;
const SOCK_STREAM = 1;
const SOCK_CLOEXEC = 0o2000000;
const SOL_SOCKET = 1;
const SO_RCVTIMEO = 20;
const SO_SNDTIMEO = 21;
/** sizeof(struct sockaddr_un): sa_family_t (2 bytes) + sun_path[108]. */
const SOCKADDR_UN = 110;

export function unixRequest(path: string, request: string, timeoutMs = 5000): string {
  const c = libc();
  const name = Buffer.from(path, 'utf8');
  if (name.length >= SOCKADDR_UN - 2) throw new Error(`${path}: socket path too long`);
  const addr = Buffer.alloc(SOCKADDR_UN);
  addr.writeUInt16LE(AF_UNIX, 0);
  name.copy(addr, 2);
  const fd: number = c.socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) fail('socket');
  try {
    // struct timeval { long tv_sec; long tv_usec; } on 64-bit Linux.
    const tv = Buffer.alloc(16);
    tv.writeBigInt64LE(BigInt(Math.floor(timeoutMs / 1000)), 0);
    tv.writeBigInt64LE(BigInt((timeoutMs % 1000) * 1000), 8);
    if (c.setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, tv, 16) < 0) fail('setsockopt');
    if (c.setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, tv, 16) < 0) fail('setsockopt');
    if (c.connect(fd, addr, 2 + name.length + 1) < 0) fail('connect', { target: path });
    const req = Buffer.from(request, 'utf8');
    if (Number(c.write(fd, req, req.length)) !== req.length) fail('write', { target: path });
    const chunks: Buffer[] = [];
    const buf = Buffer.alloc(65536);
    for (;;) {
      const n = Number(c.read(fd, buf, buf.length));
      if (n < 0) fail('read', { target: path });
      if (n === 0) break;
      chunks.push(Buffer.from(buf.subarray(0, n)));
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    c.close(fd);
  }
}
