import { BlockList, isIP } from 'node:net';

/** Decides whether the hop at `address` (i hops from us) is a proxy we trust to report the client. */
export type TrustFn = (address: string, hop: number) => boolean;

const NAMED: Record<string, string[]> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

function unmap(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

/**
 * Compiles a trust-proxy setting the way Express reads TRUST_PROXY, so the redirector sees the same
 * client address as the API: `true` / `false`, a hop count, or a comma-separated list of
 * `loopback`, `linklocal`, `uniquelocal`, addresses and CIDR ranges.
 */
export function compileTrust(setting: string | undefined): TrustFn {
  const value = (setting ?? 'loopback, linklocal, uniquelocal').trim();
  if (value === 'true') return () => true;
  if (value === 'false' || value === '') return () => false;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    return (_a, hop) => hop < hops;
  }
  const list = new BlockList();
  for (const item of value.split(',').map((s) => s.trim()).filter(Boolean)) {
    for (const entry of NAMED[item] ?? [item]) {
      const [addr, bits] = entry.split('/');
      const family = isIP(addr);
      if (!family) continue;
      const type = family === 4 ? 'ipv4' : 'ipv6';
      if (bits === undefined) list.addAddress(addr, type);
      else list.addSubnet(addr, Number(bits), type);
    }
  }
  return (address) => {
    const a = unmap(address);
    const family = isIP(a);
    return family !== 0 && list.check(a, family === 4 ? 'ipv4' : 'ipv6');
  };
}

/**
 * The client address: the socket peer, or, while that hop is a trusted proxy, the next address
 * of X-Forwarded-For from the right (like proxy-addr).
 */
export function clientIp(remote: string | undefined, forwardedFor: string | string[] | undefined, trust: TrustFn): string {
  let address = unmap(remote ?? '');
  if (!forwardedFor || !trust(address, 0)) return address;
  const header = Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor;
  const hops = header.split(',');
  for (let i = hops.length - 1, hop = 1; i >= 0; i--, hop++) {
    const next = unmap(hops[i].trim());
    if (!isIP(next)) return address;
    address = next;
    if (!trust(address, hop)) return address;
  }
  return address;
}
