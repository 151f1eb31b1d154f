import { IncomingMessage } from 'node:http';

import { AppConfig } from '@app/config';

import { ClientAddress, clientIp, compileTrust } from './client-address';

describe('client address behind proxies', () => {
  const local = compileTrust('loopback, linklocal, uniquelocal');

  it('uses the socket address when it is not a trusted proxy', () => {
    expect(clientIp('203.0.113.5', '1.2.3.4', local)).toBe('203.0.113.5');
    expect(clientIp('::ffff:203.0.113.5', undefined, local)).toBe('203.0.113.5');
  });

  it('walks X-Forwarded-For from the right while hops are trusted (loopback, link-local, unique-local by default)', () => {
    expect(clientIp('127.0.0.1', '8.8.8.8', local)).toBe('8.8.8.8');
    expect(clientIp('10.0.0.2', '1.1.1.1, 8.8.8.8, 192.168.1.1', local)).toBe('8.8.8.8');
    expect(clientIp('::1', '1.1.1.1, 8.8.8.8', local)).toBe('8.8.8.8');
    expect(clientIp('127.0.0.1', 'garbage, 8.8.8.8', local)).toBe('8.8.8.8');
    expect(clientIp('127.0.0.1', '10.0.0.1', local)).toBe('10.0.0.1');
    expect(clientIp('127.0.0.1', 'not-an-ip', local)).toBe('127.0.0.1');
  });

  it('reads true, false, hop counts and address lists', () => {
    expect(clientIp('8.8.4.4', '1.1.1.1, 9.9.9.9', compileTrust('true'))).toBe('1.1.1.1');
    expect(clientIp('127.0.0.1', '9.9.9.9', compileTrust('false'))).toBe('127.0.0.1');
    expect(clientIp('8.8.4.4', '1.1.1.1, 9.9.9.9', compileTrust('1'))).toBe('9.9.9.9');
    expect(clientIp('8.8.4.4', '1.1.1.1, 9.9.9.9', compileTrust('2'))).toBe('1.1.1.1');
    const list = compileTrust('8.8.4.0/24, 2001:db8::1');
    expect(clientIp('8.8.4.4', '9.9.9.9', list)).toBe('9.9.9.9');
    expect(clientIp('2001:db8::1', '9.9.9.9', list)).toBe('9.9.9.9');
    expect(clientIp('127.0.0.1', '9.9.9.9', list)).toBe('127.0.0.1');
  });
});

describe('IPv4 ranges', () => {
  it('matches prefixes exactly at their edges and rejects malformed addresses', () => {
    const trust = compileTrust('172.16.0.0/12, 8.8.8.8, 0.0.0.0/0x');
    expect(trust('172.16.0.0', 0)).toBe(true);
    expect(trust('172.31.255.255', 0)).toBe(true);
    expect(trust('172.32.0.0', 0)).toBe(false);
    expect(trust('172.15.255.255', 0)).toBe(false);
    expect(trust('8.8.8.8', 0)).toBe(true);
    expect(trust('8.8.8.9', 0)).toBe(false);
    for (const bad of ['256.1.1.1', '1.2.3', '1.2.3.4.5', '01234.1.1.1', '1..2.3', 'a.b.c.d', ''])
      expect([bad, trust(bad, 0)]).toEqual([bad, false]);
    expect(compileTrust('0.0.0.0/0')('9.9.9.9', 0)).toBe(true);
    expect(compileTrust('0.0.0.0/0x, 1.0.0.0/33')('9.9.9.9', 0)).toBe(false);
    expect(compileTrust('loopback')('::ffff:127.0.0.1', 0)).toBe(true);
  });
});

describe('ClientAddress (memoised per peer and X-Forwarded-For)', () => {
  const request = (remoteAddress: string, forwarded?: string | string[]) =>
    ({
      socket: { remoteAddress },
      headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded },
    }) as unknown as IncomingMessage;
  const clients = new ClientAddress({ TRUST_PROXY: 'loopback' } as AppConfig);

  it('answers as clientIp on every call, the peer being part of the memo key', () => {
    for (let i = 0; i < 3; i++) {
      expect(clients.of(request('127.0.0.1', '8.8.8.8'))).toBe('8.8.8.8');
      // the same header from a peer that is no trusted proxy: the peer itself
      expect(clients.of(request('203.0.113.5', '8.8.8.8'))).toBe('203.0.113.5');
      expect(clients.of(request('127.0.0.1'))).toBe('127.0.0.1');
      expect(clients.of(request('127.0.0.1', ['1.1.1.1', '8.8.4.4']))).toBe('8.8.4.4');
    }
    const long = `${'9.9.9.9, '.repeat(40)}8.8.8.8`;
    expect(clients.of(request('127.0.0.1', long))).toBe('8.8.8.8');
  });
});
