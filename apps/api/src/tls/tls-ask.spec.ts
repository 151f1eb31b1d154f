import { askedDomain, LookupBudget } from './tls-ask';

describe('askedDomain', () => {
  it('lower-cases, drops one trailing dot and turns an IDN into punycode', () => {
    expect(askedDomain('domain=Go.Example.COM')).toBe('go.example.com');
    expect(askedDomain('domain=go.example.com.')).toBe('go.example.com');
    expect(askedDomain(`domain=${encodeURIComponent('bücher.Example')}`)).toBe(
      'xn--bcher-kva.example',
    );
    expect(askedDomain('domain=xn--bcher-kva.example')).toBe('xn--bcher-kva.example');
    expect(askedDomain('domain=localhost')).toBe('localhost');
    expect(askedDomain('domain=127.0.0.1')).toBe('127.0.0.1');
    expect(askedDomain('x=1&domain=a.example')).toBe('a.example');
  });

  it('refuses a missing, empty, repeated or malformed parameter', () => {
    for (const q of [
      '',
      'domain=',
      'domain',
      'host=a.example',
      'domain=a.example&domain=b.example',
      'domain=a.example:443',
      'domain=a%20b.example',
      'domain=a..example',
      'domain=-a.example',
      'domain=a_b.example',
      'domain=a.example..',
      'domain=a.example%0d%0aX: y',
      `domain=${'a'.repeat(64)}.example`,
      `domain=${'abc.'.repeat(64)}example`,
      'domain=http://a.example',
      'domain=a.example/x',
    ])
      expect([q, askedDomain(q)]).toEqual([q, null]);
  });
});

describe('LookupBudget', () => {
  it('allows the burst, then perSecond lookups per second', () => {
    let now = 0;
    const budget = new LookupBudget(2, 3, () => now);
    expect([budget.take(), budget.take(), budget.take(), budget.take()]).toEqual([
      true,
      true,
      true,
      false,
    ]);
    now += 500;
    expect([budget.take(), budget.take()]).toEqual([true, false]);
    now += 10_000;
    expect([budget.take(), budget.take(), budget.take(), budget.take()]).toEqual([
      true,
      true,
      true,
      false,
    ]);
  });
});
