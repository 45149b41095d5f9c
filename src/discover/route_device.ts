// numactl's `ip:HOST` node spec: the network device the kernel routes HOST through, whose node
// is then the spec's (numactl affinity.c affinity_ip). HOST is resolved as glibc resolves it
// (getent ahosts: /etc/hosts, DNS, the same NSS order numactl's getaddrinfo uses); its first
// address is routed with the tables in /proc/net. Addresses of this host and loopback go through
// lo, which has no node: that is an error, as in numactl.
import { spawnSync } from 'node:child_process';
import { networkInterfaces } from 'node:os';
import { isLoopback, parseIp, pickRoute, type IpAddress } from '../model/ip_route.js';
import { SpecError } from '../model/errors.js';
import { readRoutes } from '../sysfs/proc_net_route.js';
import type { SysRoot } from '../sysfs/root.js';

/** HOST's first address: HOST itself when it is one, else glibc's answer (getent ahosts). */
export function resolveHost(host: string): IpAddress {
  const literal = parseIp(host.replace(/^\[(.*)\]$/, '$1'));
  if (literal !== null) return literal;
  if (!/^[A-Za-z0-9._-]+$/.test(host)) throw new SpecError(`ip:${host}: not a host name or address`);
  const r = spawnSync('getent', ['ahosts', host], { encoding: 'utf8', timeout: 10_000 });
  if (r.error !== undefined) throw new SpecError(`ip:${host}: cannot resolve it (getent: ${r.error.message})`);
  for (const line of (r.stdout ?? '').split('\n')) {
    const ip = parseIp(line.split(/\s+/)[0] ?? '');
    if (ip !== null) return ip;
  }
  throw new SpecError(`ip:${host}: unknown host (getent ahosts found no address)`);
}

/** The device the kernel sends to `host` through. */
export function routeDevice(root: SysRoot, host: string): string {
  const ip = resolveHost(host);
  if (isLoopback(ip) || isOwnAddress(ip)) return 'lo';
  const route = pickRoute(readRoutes(root), ip);
  if (route === null)
    throw new SpecError(`ip:${host}: no route to it in /proc/net/${ip.family === 4 ? 'route' : 'ipv6_route'}`);
  return route.iface;
}

/** An address of this host's interfaces: the kernel's local table routes it through lo. */
function isOwnAddress(ip: IpAddress): boolean {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) {
      const own = parseIp(a.address.replace(/%.*$/, ''));
      if (own !== null && own.family === ip.family && own.value === ip.value) return true;
    }
  }
  return false;
}
