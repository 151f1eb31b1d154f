import { InvalidFieldError } from '@app/common';
import { AppConfig } from '@app/config';

import { DnsAnswer, DnsLookupError, DnsResolver } from './dns.resolver';
import { DomainVerifier, normalizeIp } from './domain.verifier';

/** A DNS that answers from a table, or fails with a given code. */
class FakeDns extends DnsResolver {
  readonly asked: string[] = [];
  constructor(private readonly answers: Record<string, Partial<DnsAnswer> | string>) {
    super();
  }
  async lookup(host: string): Promise<DnsAnswer> {
    this.asked.push(host);
    const answer = this.answers[host];
    if (typeof answer === 'string') throw new DnsLookupError(answer);
    return { a: [], aaaa: [], cname: [], ...answer };
  }
}

function verifier(
  answers: Record<string, Partial<DnsAnswer> | string>,
  config: Partial<AppConfig>,
) {
  const dns = new FakeDns(answers);
  const cfg = Object.assign(new AppConfig(), { DOMAIN_VERIFY: 'dns', SERVICE_IPS: [], ...config });
  return { dns, verifier: new DomainVerifier(cfg, dns) };
}

async function rejection(p: Promise<unknown>): Promise<InvalidFieldError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(InvalidFieldError);
  expect((err as Error).message).toMatch(/^domain: does not point to this service \(/);
  return err as InvalidFieldError;
}

describe('DomainVerifier', () => {
  const config = {
    SERVICE_IPS: ['203.0.113.7', '2001:DB8:0:0::1'],
    SERVICE_HOST: 'edge.short.example.',
  };

  it('skips DNS entirely with DOMAIN_VERIFY=off', async () => {
    const { dns, verifier: v } = verifier({}, { ...config, DOMAIN_VERIFY: 'off' });
    await expect(v.assertPointsHere('anything.example')).resolves.toBeUndefined();
    expect(dns.asked).toEqual([]);
  });

  it('accepts an A record in SERVICE_IPS', async () => {
    const { verifier: v } = verifier(
      { 'a.example': { a: ['198.51.100.1', '203.0.113.7'] } },
      config,
    );
    await expect(v.assertPointsHere('a.example')).resolves.toBeUndefined();
  });

  it('accepts an AAAA record in SERVICE_IPS, whatever its spelling', async () => {
    const { verifier: v } = verifier({ 'six.example': { aaaa: ['2001:db8::1'] } }, config);
    await expect(v.assertPointsHere('six.example')).resolves.toBeUndefined();
  });

  it('accepts a CNAME of SERVICE_HOST (case and trailing dot ignored)', async () => {
    const { verifier: v } = verifier(
      { 'c.example': { cname: ['EDGE.short.example'], a: ['192.0.2.9'] } },
      config,
    );
    await expect(v.assertPointsHere('c.example')).resolves.toBeUndefined();
  });

  it('rejects other addresses and CNAMEs, saying what it expects and never what DNS answered', async () => {
    const { verifier: v } = verifier(
      { 'x.example': { a: ['10.1.2.3', '10.1.2.3'], cname: ['db.internal.example'] } },
      config,
    );
    const err = await rejection(v.assertPointsHere('x.example'));
    expect(err.message).toBe(
      'domain: does not point to this service (expected an A/AAAA record in 203.0.113.7, 2001:db8::1 or a CNAME to edge.short.example)',
    );
  });

  it('rejects a host without records with the same message (no answer is told apart)', async () => {
    const { verifier: v } = verifier({}, config);
    expect((await rejection(v.assertPointsHere('none.example'))).message).toBe(
      'domain: does not point to this service (expected an A/AAAA record in 203.0.113.7, 2001:db8::1 or a CNAME to edge.short.example)',
    );
  });

  it('rejects when the lookup times out or fails', async () => {
    const { verifier: v } = verifier(
      { 'slow.example': 'ETIMEOUT', 'bad.example': 'ESERVFAIL' },
      config,
    );
    expect((await rejection(v.assertPointsHere('slow.example'))).message).toContain('timed out');
    expect((await rejection(v.assertPointsHere('bad.example'))).message).toContain('ESERVFAIL');
  });

  it('rejects everything when the service has no address configured', async () => {
    const { verifier: v } = verifier(
      { 'a.example': { a: ['203.0.113.7'] } },
      { SERVICE_IPS: [], SERVICE_HOST: undefined },
    );
    expect((await rejection(v.assertPointsHere('a.example'))).message).toContain(
      'no SERVICE_IPS or SERVICE_HOST',
    );
  });

  it('a CNAME alone is not enough without SERVICE_HOST', async () => {
    const { verifier: v } = verifier(
      { 'c.example': { cname: ['edge.short.example'] } },
      { SERVICE_IPS: ['203.0.113.7'] },
    );
    await rejection(v.assertPointsHere('c.example'));
  });
});

describe('normalizeIp', () => {
  it('compresses and lower-cases IPv6, leaves IPv4', () => {
    expect(normalizeIp('2001:DB8:0:0:0:0:0:1')).toBe('2001:db8::1');
    expect(normalizeIp(' 203.0.113.7 ')).toBe('203.0.113.7');
  });
});
