// IP addresses as numbers, and the route the kernel would pick for one: the longest prefix that
// holds it, the lowest metric among equals (the FIB's order for unicast routes). What numactl's
// `ip:HOST` node spec asks the kernel over rtnetlink (RTM_GETROUTE), answered from the route
// tables in /proc/net. Pure.

export interface Route {
  readonly family: 4 | 6;
  readonly iface: string;
  /** The destination network, as a number of 32 (IPv4) or 128 (IPv6) bits. */
  readonly dest: bigint;
  readonly prefix: number;
  readonly metric: number;
}

export interface IpAddress {
  readonly family: 4 | 6;
  readonly value: bigint;
}

/** "192.0.2.1", "2001:db8::1", "::1"; null when not an address. */
export function parseIp(text: string): IpAddress | null {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (v4 !== null) {
    const parts = v4.slice(1).map(Number);
    if (parts.some((p) => p > 255)) return null;
    return { family: 4, value: parts.reduce((a, p) => (a << 8n) | BigInt(p), 0n) };
  }
  if (!/^[0-9a-fA-F:]+$/.test(text) || text.split('::').length > 2) return null;
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const groups = (s: string | undefined) => (s === undefined || s === '' ? [] : s.split(':'));
  const h = groups(head);
  const t = groups(tail);
  const missing = 8 - h.length - t.length;
  if (tail === undefined ? missing !== 0 : missing < 1) return null;
  const all = [...h, ...Array<string>(tail === undefined ? 0 : missing).fill('0'), ...t];
  if (all.some((g) => !/^[0-9a-fA-F]{1,4}$/.test(g))) return null;
  return { family: 6, value: all.reduce((a, g) => (a << 16n) | BigInt(parseInt(g, 16)), 0n) };
}

/** Loopback: 127.0.0.0/8 and ::1, which the kernel routes through lo. */
export function isLoopback(ip: IpAddress): boolean {
  return ip.family === 4 ? ip.value >> 24n === 127n : ip.value === 1n;
}

/** The route for `ip`: the longest matching prefix, then the lowest metric; null when none holds it. */
export function pickRoute(routes: readonly Route[], ip: IpAddress): Route | null {
  const bits = ip.family === 4 ? 32 : 128;
  let best: Route | null = null;
  for (const r of routes) {
    if (r.family !== ip.family) continue;
    const shift = BigInt(bits - r.prefix);
    if (ip.value >> shift !== r.dest >> shift) continue;
    if (best === null || r.prefix > best.prefix || (r.prefix === best.prefix && r.metric < best.metric)) best = r;
  }
  return best;
}
