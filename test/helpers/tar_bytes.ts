// A minimal ustar writer for tests that need archives no archiver would make: "../" and
// absolute names, devices, FIFOs, hard links, a header that claims more bytes than follow.
import { gzipSync } from 'node:zlib';

export interface RawTarEntry {
  readonly path: string;
  /** ustar type flag: '0' file, '5' directory, '2' symlink, '1' hard link, '3'/'4' devices, '6' FIFO. */
  readonly type: string;
  readonly data?: string | Buffer;
  readonly linkpath?: string;
  /** The size written in the header, when it should lie about the data that follows. */
  readonly claimed?: number | null;
}

function field(buf: Buffer, at: number, len: number, value: string): void {
  buf.write(value.slice(0, len), at, len, 'utf8');
}

function octal(buf: Buffer, at: number, len: number, value: number): void {
  field(buf, at, len, `${value.toString(8).padStart(len - 1, '0')}\0`);
}

function header(e: RawTarEntry, size: number): Buffer {
  const h = Buffer.alloc(512);
  field(h, 0, 100, e.path);
  octal(h, 100, 8, e.type === '5' ? 0o755 : 0o644);
  octal(h, 108, 8, 0);
  octal(h, 116, 8, 0);
  if ((e.claimed ?? size) < 8 ** 11) octal(h, 124, 12, e.claimed ?? size);
  else h.writeUInt8(0x80, 124); // GNU base-256 size: a very large claim
  octal(h, 136, 12, 1700000000);
  h.fill(' ', 148, 156);
  field(h, 156, 1, e.type);
  field(h, 157, 100, e.linkpath ?? '');
  field(h, 257, 6, 'ustar\0');
  field(h, 263, 2, '00');
  let sum = 0;
  for (const b of h) sum += b;
  field(h, 148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  return h;
}

/** The archive's bytes, gzipped unless `gzip` is false. */
export function tarBytes(entries: readonly RawTarEntry[], gzip = true): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const data = e.type === '0' ? Buffer.from(e.data ?? '') : Buffer.alloc(0);
    parts.push(header(e, data.length), data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  const tar = Buffer.concat(parts);
  return gzip ? gzipSync(tar) : tar;
}
