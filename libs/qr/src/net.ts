import { LookupAddress, lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP, LookupFunction } from 'node:net';

/**
 * Addresses a server-side fetch must never reach: loopback, private, link-local, CGNAT,
 * multicast, reserved and documentation ranges, and the IPv6 forms that embed IPv4.
 */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/** `::ffff:a.b.c.d` / `::ffff:0a0b:0c0d` (IPv4-mapped) and `::a.b.c.d` (IPv4-compatible) → `a.b.c.d`. */
function embeddedIpv4(ip: string): string | null {
  const m = /^::(?:ffff:(?:0{1,4}:)?)?(.+)$/i.exec(ip);
  if (!m) return null;
  const rest = m[1];
  if (isIP(rest) === 4) return rest;
  const hex = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(rest);
  if (!hex || !/^::ffff:/i.test(ip)) return null;
  const hi = parseInt(hex[1], 16);
  const lo = parseInt(hex[2], 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/**
 * True when `ip` (a literal address, IPv6 with or without brackets) is a public unicast address.
 * Anything that is not an IP literal is not public.
 */
export function isPublicAddress(ip: string): boolean {
  const addr = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const family = isIP(addr);
  if (family === 4) return !blocked.check(addr, 'ipv4');
  if (family !== 6) return false;
  const v4 = embeddedIpv4(addr);
  if (v4) return !blocked.check(v4, 'ipv4');
  return !blocked.check(addr, 'ipv6');
}

/**
 * A `lookup` for http(s) requests that resolves every address of the host and fails with
 * `refuse(hostname)` unless all of them are public: the connection then goes to an address that
 * was checked (no second resolution to race). With `allowPrivate` it is a plain lookup.
 */
export function publicOnlyLookup(
  allowPrivate: boolean,
  refuse: (hostname: string) => Error,
): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(
      hostname,
      { all: true, family: options.family as number | undefined },
      (err, addresses: LookupAddress[]) => {
        if (err) return callback(err, '', 0);
        if (!addresses.length)
          return callback(Object.assign(new Error('no address'), { code: 'ENOTFOUND' }), '', 0);
        if (!allowPrivate && addresses.some((a) => !isPublicAddress(a.address)))
          return callback(refuse(hostname), '', 0);
        if (options.all)
          (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
        else callback(null, addresses[0].address, addresses[0].family);
      },
    );
  };
}
