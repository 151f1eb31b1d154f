import { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';

import { Injectable } from '@nestjs/common';

import { AppConfig } from '@app/config';

/** Decides whether the hop at `address` (i hops from us) is a proxy we trust to report the client. */
export type TrustFn = (address: string, hop: number) => boolean;

const NAMED: Record<string, string[]> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

function unmap(address: string): string {
  return address.startsWith('::ffff:') && ipv4(address.slice(7)) >= 0 ? address.slice(7) : address;
}

/** A dotted-quad IPv4 address as an unsigned 32-bit number, or -1. */
function ipv4(address: string): number {
  let n = 0;
  let part = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < address.length; i++) {
    const c = address.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || ++dots > 3) return -1;
      n = n * 256 + part;
      part = 0;
      digits = 0;
    } else if (c >= 48 && c <= 57 && digits < 3) {
      part = part * 10 + (c - 48);
      if (part > 255) return -1;
      digits++;
    } else return -1;
  }
  return dots === 3 && digits > 0 ? n * 256 + part : -1;
}

/**
 * Compiles a trust-proxy setting the way Express reads `trust proxy`: `true` / `false`, a hop count, or a comma-separated list of
 * `loopback`, `linklocal`, `uniquelocal`, addresses and CIDR ranges. IPv4 is matched with integer
 * arithmetic (this runs for every visit); IPv6 with a BlockList.
 */
export function compileTrust(setting: string): TrustFn {
  const value = setting.trim();
  if (value === 'true') return () => true;
  if (value === 'false' || value === '') return () => false;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    return (_a, hop) => hop < hops;
  }
  const v4: Array<[number, number]> = [];
  const v6 = new BlockList();
  for (const item of value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    for (const entry of NAMED[item] ?? [item]) {
      const [addr, bits] = entry.split('/');
      const family = isIP(addr);
      if (
        bits !== undefined &&
        (!/^\d{1,3}$/.test(bits) || Number(bits) > (family === 4 ? 32 : 128))
      )
        continue;
      if (family === 4) {
        const prefix = bits === undefined ? 32 : Number(bits);
        const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
        v4.push([(ipv4(addr) & mask) >>> 0, mask]);
      } else if (family === 6) {
        if (bits === undefined) v6.addAddress(addr, 'ipv6');
        else v6.addSubnet(addr, Number(bits), 'ipv6');
      }
    }
  }
  return (address) => {
    const a = unmap(address);
    const n = ipv4(a);
    if (n >= 0) {
      for (const [base, mask] of v4) if ((n & mask) >>> 0 === base) return true;
      return false;
    }
    return isIP(a) === 6 && v6.check(a, 'ipv6');
  };
}

/**
 * The client address: the socket peer, or, while that hop is a trusted proxy, the next address
 * of X-Forwarded-For from the right (like proxy-addr).
 */
export function clientIp(
  remote: string | undefined,
  forwardedFor: string | string[] | undefined,
  trust: TrustFn,
): string {
  let address = unmap(remote ?? '');
  if (!forwardedFor || !trust(address, 0)) return address;
  const header = Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor;
  const hops = header.split(',');
  for (let i = hops.length - 1, hop = 1; i >= 0; i--, hop++) {
    const next = unmap(hops[i].trim());
    if (ipv4(next) < 0 && isIP(next) !== 6) return address;
    address = next;
    if (!trust(address, hop)) return address;
  }
  return address;
}

/**
 * The one client-address function of the service (rate limit, statistics, password attempts):
 * the socket peer, or the X-Forwarded-For hop named by the proxies TRUST_PROXY trusts.
 */
@Injectable()
export class ClientAddress {
  private readonly trust: TrustFn;
  /**
   * (peer, X-Forwarded-For) → client address: behind a proxy a visitor's requests repeat the
   * pair, and parsing the header and checking each hop cost ~1.3 µs per visit (profile of the
   * hot redirect). Bounded: short headers only, cleared at MEMO_MAX entries.
   */
  private readonly memo = new Map<string | undefined, Map<string, string>>();
  private memoSize = 0;

  constructor(config: AppConfig) {
    this.trust = compileTrust(config.TRUST_PROXY);
  }

  of(req: IncomingMessage): string {
    const remote = req.socket.remoteAddress;
    const forwarded = req.headers['x-forwarded-for'];
    if (typeof forwarded !== 'string' || forwarded.length > MEMO_HEADER_MAX)
      return clientIp(remote, forwarded, this.trust);
    // nested maps: no key string to build per request
    let byHeader = this.memo.get(remote);
    let ip = byHeader?.get(forwarded);
    if (ip === undefined) {
      ip = clientIp(remote, forwarded, this.trust);
      if (this.memoSize >= MEMO_MAX) {
        this.memo.clear();
        this.memoSize = 0;
        byHeader = undefined;
      }
      if (!byHeader) this.memo.set(remote, (byHeader = new Map()));
      byHeader.set(forwarded, ip);
      this.memoSize += 1;
    }
    return ip;
  }
}

const MEMO_MAX = 10_000;
const MEMO_HEADER_MAX = 200;
