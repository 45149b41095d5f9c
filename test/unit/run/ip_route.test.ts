// numactl's ip:HOST node spec: addresses parsed, the kernel's route tables in /proc/net read, the
// route the kernel would pick found (longest prefix, then metric), and the device's node used;
// loopback and this host's own addresses go through lo, which has no node (run_cli.test.ts runs
// `run -m ip:127.0.0.1` end to end).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseIp, pickRoute, type Route } from '../../../src/model/ip_route.ts';
import { parseProcNetIpv6Route, parseProcNetRoute } from '../../../src/sysfs/proc_net_route.ts';

// Captured from a Debian 12 VM (eth0 192.0.2.0/24 via 192.0.2.1) and an ipv6 host.
const ROUTE = `Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
eth0\t00000000\t010200C0\t0003\t0\t0\t100\t00000000\t0\t0\t0
eth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0
ib0\t0000000A\t00000000\t0001\t0\t0\t0\t000000FF\t0\t0\t0
ib1\t0000000A\t00000000\t0001\t0\t0\t5\t000000FF\t0\t0\t0
down0\t0001000A\t00000000\t0000\t0\t0\t0\t00FFFFFF\t0\t0\t0
`;
const IPV6 = `fd000000000000000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001     eth0
00000000000000000000000000000000 00 00000000000000000000000000000000 00 fd000000000000000000000000000001 00000400 00000003 00000000 00000003     eth0
00000000000000000000000000000001 80 00000000000000000000000000000000 00 00000000000000000000000000000000 00000000 00000002 00000000 80200001       lo
`;

describe('ip:HOST routing', () => {
  it('parses addresses, v4 and v6, and refuses what is not one', () => {
    assert.deepEqual(parseIp('192.0.2.1'), { family: 4, value: 0xc0000201n });
    assert.deepEqual(parseIp('::1'), { family: 6, value: 1n });
    assert.deepEqual(parseIp('fd00::2'), { family: 6, value: (0xfd00n << 112n) | 2n });
    assert.deepEqual(parseIp('1:2:3:4:5:6:7:8'), { family: 6, value: 0x00010002000300040005000600070008n });
    for (const bad of ['256.1.1.1', '1.2.3', 'host', '1::2::3', '1:2:3:4:5:6:7:8:9', '12345::', ''])
      assert.equal(parseIp(bad), null, bad);
  });

  it('reads both route tables (byte order, prefix from the mask, routes not up left out)', () => {
    const v4 = parseProcNetRoute(ROUTE, true);
    assert.deepEqual(
      v4.map((r) => [r.iface, r.dest.toString(16), r.prefix, r.metric]),
      [
        ['eth0', '0', 0, 100],
        ['eth0', 'c0000200', 24, 0],
        ['ib0', 'a000000', 8, 0],
        ['ib1', 'a000000', 8, 5],
      ],
    );
    const v6 = parseProcNetIpv6Route(IPV6);
    assert.deepEqual(
      v6.map((r) => [r.iface, r.prefix, r.metric]),
      [
        ['eth0', 64, 256],
        ['eth0', 0, 1024],
        ['lo', 128, 0],
      ],
    );
    assert.throws(() => parseProcNetRoute('header\neth0 zz\n'), /not a route line/);
    assert.throws(() => parseProcNetIpv6Route('x y\n'), /not an ipv6_route line/);
  });

  it('picks the longest prefix, then the lowest metric, as the FIB does', () => {
    const routes: Route[] = [...parseProcNetRoute(ROUTE, true), ...parseProcNetIpv6Route(IPV6)];
    const dev = (ip: string) => pickRoute(routes, parseIp(ip)!)?.iface;
    assert.equal(dev('192.0.2.77'), 'eth0');
    assert.equal(dev('10.1.2.3'), 'ib0'); // ib0 and ib1 both /8: metric 0 wins
    assert.equal(dev('8.8.8.8'), 'eth0'); // the default route
    assert.equal(dev('fd00::7'), 'eth0');
    assert.equal(dev('::1'), 'lo');
    assert.equal(pickRoute(parseProcNetRoute(ROUTE, true).slice(1), parseIp('8.8.8.8')!), null);
  });
});
