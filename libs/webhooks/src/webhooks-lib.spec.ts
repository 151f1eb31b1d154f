import { createHmac } from 'node:crypto';

import { verifyWebhookSignature, webhookSignature } from './signature';
import { webhookUrlProblem } from './target';

describe('webhook signature', () => {
  it('is sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">', () => {
    const body = '{"id":"x","event":"link.created","created":"2024-01-01 00:00:00","data":{}}';
    const expected = createHmac('sha256', 'whsec_test').update(`1700000000.${body}`).digest('hex');
    expect(webhookSignature('whsec_test', 1700000000, body)).toBe(`sha256=${expected}`);
    expect(verifyWebhookSignature('whsec_test', '1700000000', body, `sha256=${expected}`)).toBe(
      true,
    );
    expect(verifyWebhookSignature('whsec_test', '1700000001', body, `sha256=${expected}`)).toBe(
      false,
    );
    expect(verifyWebhookSignature('other', '1700000000', body, `sha256=${expected}`)).toBe(false);
    expect(
      verifyWebhookSignature('whsec_test', '1700000000', `${body} `, `sha256=${expected}`),
    ).toBe(false);
    expect(verifyWebhookSignature('whsec_test', '1700000000', body, 'sha256=00')).toBe(false);
  });
});

describe('webhook URL rules', () => {
  it('wants https on a public host, unless the operator allows the host', () => {
    expect(webhookUrlProblem('https://hooks.example.com/x', [])).toBeNull();
    expect(webhookUrlProblem('https://203.0.114.7/x', [])).toBeNull();
    expect(webhookUrlProblem('http://hooks.example.com/x', [])).toMatch(/https/);
    expect(webhookUrlProblem('ftp://hooks.example.com/x', [])).toMatch(/https/);
    expect(webhookUrlProblem('nonsense', [])).toMatch(/https/);
    expect(webhookUrlProblem('https://user:pw@hooks.example.com/', [])).toMatch(/credentials/);
    for (const url of [
      'https://127.0.0.1/',
      'https://10.0.0.1/',
      'https://172.16.5.4/',
      'https://192.168.0.10/',
      'https://169.254.169.254/',
      'https://100.64.0.1/',
      'https://[::1]/',
      'https://[fc00::1]/',
      'https://[fe80::1]/',
      'https://[::ffff:10.0.0.1]/',
      'https://[::7f00:1]/',
      'https://[::127.0.0.1]/',
      'https://[::a9fe:a9fe]/',
      'https://[::ffff:8.8.8.8]/',
      'https://0.0.0.0/',
    ])
      expect([url, webhookUrlProblem(url, [])]).toEqual([url, expect.stringMatching(/private/)]);
    expect(webhookUrlProblem('http://10.0.0.5:8080/hook', ['10.0.0.5'])).toBeNull();
    expect(webhookUrlProblem('http://Internal.Example./hook', ['internal.example'])).toBeNull();
    expect(webhookUrlProblem('http://10.0.0.6/hook', ['10.0.0.5'])).toMatch(/https/);
  });

  it('an allowed host with a port exempts that port only', () => {
    const allow = ['10.0.0.5:8080', 'hooks.internal:443', '[::1]:9000'];
    expect(webhookUrlProblem('http://10.0.0.5:8080/hook', allow)).toBeNull();
    expect(webhookUrlProblem('http://10.0.0.5:8081/hook', allow)).toMatch(/https/);
    expect(webhookUrlProblem('https://10.0.0.5/hook', allow)).toMatch(/private/);
    expect(webhookUrlProblem('https://hooks.internal/hook', allow)).toBeNull();
    expect(webhookUrlProblem('http://hooks.internal/hook', allow)).toMatch(/https/);
    expect(webhookUrlProblem('http://[::1]:9000/hook', allow)).toBeNull();
    expect(webhookUrlProblem('https://[::1]:9001/hook', allow)).toMatch(/private/);
  });

  it('a refusal the operator can lift names WEBHOOK_ALLOW_HOSTS and the entry to add', () => {
    expect(webhookUrlProblem('http://hooks.example.com/x', [])).toBe(
      'must be an absolute https URL (http: an operator can allow it with WEBHOOK_ALLOW_HOSTS=hooks.example.com)',
    );
    expect(webhookUrlProblem('https://10.0.0.5:8443/x', [])).toBe(
      'must not point to a private, loopback or link-local address (an operator can allow it with WEBHOOK_ALLOW_HOSTS=10.0.0.5:8443)',
    );
    expect(webhookUrlProblem('https://[::1]:9001/x', [])).toMatch(
      /WEBHOOK_ALLOW_HOSTS=\[::1\]:9001\)$/,
    );
    expect(webhookUrlProblem('https://127.0.0.1/x', [])).toMatch(
      /WEBHOOK_ALLOW_HOSTS=127\.0\.0\.1\)$/,
    );
    // not the operator's to lift: no hint
    expect(webhookUrlProblem('ftp://hooks.example.com/x', [])).toBe(
      'must be an absolute https URL',
    );
    expect(webhookUrlProblem('nonsense', [])).toBe('must be an absolute https URL');
  });
});
