import { LookupAddress, lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP, LookupFunction } from 'node:net';

/**
 * Addresses a server-side fetch must never reach: loopback, private, link-local, CGNAT,
 * multicast, reserved and documentation ranges, and every IPv6 form that embeds an IPv4 address
 * (::/96, ::ffff:0:0/96, ::ffff:0:0:0/96, NAT64, 6to4, Teredo), whichever address it embeds.
 */
const blocked = new BlockList();
/** IPv6 ranges, apart: a BlockList checks IPv4 addresses against IPv4-mapped IPv6 rules too. */
const blocked6 = new BlockList();
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
  // IPv4-compatible (deprecated: `::7f00:1` is `::127.0.0.1`, which some stacks still route to
  // 127.0.0.1), the unspecified and loopback addresses among them
  ['::', 96],
  // IPv4-mapped and IPv4-translated: whatever IPv4 address they carry, never a public IPv6 target
  ['::ffff:0:0', 96],
  ['::ffff:0:0:0', 96],
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
  blocked6.addSubnet(net, prefix, 'ipv6');
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
  return !blocked6.check(addr, 'ipv6');
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
