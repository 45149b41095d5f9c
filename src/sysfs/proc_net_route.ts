// The kernel's IPv4 and IPv6 route tables: /proc/net/route (main table; destination and mask
// as the hex of a u32 in this machine's byte order) and /proc/net/ipv6_route (every table, local
// addresses included with dev lo; 32 hex digits, prefix length in hex, flags, device last).
// net/ipv4/fib_trie.c fib_route_seq_show, net/ipv6/route.c rt6_info_seq_show. Routes not up
// (RTF_UP clear) are left out.
import { endianness } from 'node:os';
import { SysfsParseError } from '../model/errors.js';
import type { Route } from '../model/ip_route.js';
import { readParsed } from './read_parsed.js';
import type { SysRoot } from './root.js';

const RTF_UP = 0x1;

/** /proc/net/route: a header line, then Iface Destination Gateway Flags RefCnt Use Metric Mask ... */
export function parseProcNetRoute(text: string, littleEndian = endianness() === 'LE'): Route[] {
  const out: Route[] = [];
  text.split('\n').forEach((line, i) => {
    const f = line.trim().split(/\s+/);
    if (i === 0 || f.length === 1) return; // the header, blank lines
    if (f.length < 8 || !/^[0-9A-Fa-f]{8}$/.test(f[1]!) || !/^[0-9A-Fa-f]{8}$/.test(f[7]!))
      throw new SysfsParseError('not a route line', { line: i + 1, text: line });
    if ((parseInt(f[3]!, 16) & RTF_UP) === 0) return;
    const u32 = (hex: string) => {
      const v = parseInt(hex, 16) >>> 0;
      return (
        BigInt(
          littleEndian ? ((v & 0xff) << 24) | (((v >>> 8) & 0xff) << 16) | (((v >>> 16) & 0xff) << 8) | (v >>> 24) : v,
        ) & 0xffffffffn
      );
    };
    const mask = u32(f[7]!);
    let prefix = 0;
    for (let b = 31n; b >= 0n && (mask >> b) & 1n; b--) prefix++;
    out.push({ family: 4, iface: f[0]!, dest: u32(f[1]!), prefix, metric: Number(f[6]) });
  });
  return out;
}

/** /proc/net/ipv6_route: dest plen src splen nexthop metric refcnt use flags device. */
export function parseProcNetIpv6Route(text: string): Route[] {
  const out: Route[] = [];
  text.split('\n').forEach((line, i) => {
    const f = line.trim().split(/\s+/);
    if (f.length === 1 && f[0] === '') return;
    if (f.length !== 10 || !/^[0-9a-f]{32}$/.test(f[0]!) || !/^[0-9a-f]{2}$/.test(f[1]!))
      throw new SysfsParseError('not an ipv6_route line', { line: i + 1, text: line });
    if ((parseInt(f[8]!, 16) & RTF_UP) === 0) return;
    out.push({
      family: 6,
      iface: f[9]!,
      dest: BigInt(`0x${f[0]}`),
      prefix: parseInt(f[1]!, 16),
      metric: parseInt(f[5]!, 16),
    });
  });
  return out;
}

/** Both tables; a missing one (no IPv6, no /proc/net) is no routes. */
export function readRoutes(root: SysRoot): Route[] {
  return [
    ...(readParsed(root, 'proc/net/route', (t) => parseProcNetRoute(t)) ?? []),
    ...(readParsed(root, 'proc/net/ipv6_route', parseProcNetIpv6Route) ?? []),
  ];
}
