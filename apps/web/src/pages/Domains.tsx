import { useState } from 'react';

import { ApiError, call, client, Schemas } from '../api';
import { toApiError } from '../ui';
import { ResourcePage, ResourceSpec, text, Values } from './links/Resource';

type Domain = Schemas['DomainView'];

const hostOf = (d: Domain) => d.domain.replace(/^https?:\/\//, '');

/** One DNS record to create: type, name, value. */
function DnsRecord(props: { type: string; name: string; value: string; label: string }) {
  return (
    <dl className="dns-record" aria-label={props.label}>
      <dt>Type</dt>
      <dd>{props.type}</dd>
      <dt>Name</dt>
      <dd>{props.name}</dd>
      <dt>Value</dt>
      <dd>{props.value}</dd>
    </dl>
  );
}

/**
 * What to create at the domain's DNS host: the A/AAAA or CNAME record pointing it here (`target`)
 * and, until ownership is proven, the TXT record (`verification`); "Verify" asks the API to look
 * (POST /api/domain/:id/verify) and shows the answer: verified, or the API's reason.
 */
function DnsSetup(props: { domain: Domain; reload: () => Promise<void> }) {
  const d = props.domain;
  const host = hostOf(d);
  const [result, setResult] = useState<string>('');
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);

  const verify = async () => {
    setBusy(true);
    setResult('');
    setError(null);
    try {
      const answer = await call(
        client.POST('/api/domain/{id}/verify', { params: { path: { id: d.id } } }),
      );
      setResult(answer.message || 'Domain ownership is verified.');
      await props.reload();
    } catch (err) {
      setError(toApiError(err));
    } finally {
      setBusy(false);
    }
  };

  const target = d.target;
  const ip6 = (ip: string) => ip.includes(':');
  return (
    <section className="res-extra" aria-label={`DNS set-up of ${host}`}>
      <h3>DNS records</h3>
      {target ? (
        <>
          <p>
            Point <strong>{host}</strong> to this service with one of:
          </p>
          {target.addresses.map((ip) => (
            <DnsRecord
              key={ip}
              label={`${ip6(ip) ? 'AAAA' : 'A'} record ${ip}`}
              type={ip6(ip) ? 'AAAA' : 'A'}
              name={host}
              value={ip}
            />
          ))}
          {target.cname && (
            <DnsRecord label="CNAME record" type="CNAME" name={host} value={target.cname} />
          )}
          {!target.addresses.length && !target.cname && (
            <p className="error">
              The service has no address or host name set for branded domains: ask its operator.
            </p>
          )}
        </>
      ) : (
        <p className="hint">This service does not check DNS: the domain serves links at once.</p>
      )}
      {d.verification ? (
        <>
          <p>Prove that the domain is yours with this TXT record, then press “Verify”:</p>
          <DnsRecord
            label="TXT record"
            type={d.verification.type}
            name={d.verification.name}
            value={d.verification.value}
          />
          <p className="hint">DNS changes can take a while to be seen.</p>
          <button type="button" className="primary" onClick={verify} disabled={busy}>
            Verify<span className="visually-hidden"> {host}</span>
          </button>
        </>
      ) : (
        <p>Ownership is verified: the domain serves your links.</p>
      )}
      <p role="status" className="res-status">
        {result}
      </p>
      {error && (
        <p className="error" role="alert">
          {error.message}
        </p>
      )}
    </section>
  );
}

const REDIRECT_HINT = 'An absolute http(s) URL; empty: the 404 page.';

const redirects = (v: Values) => ({
  redirectroot: text(v, 'redirectroot'),
  redirect404: text(v, 'redirect404'),
});

/**
 * Branded domains: GET /api/domains, POST /api/domain/add, PUT …/update (the two redirects),
 * DELETE, and each domain's DNS records with "Verify".
 */
const DOMAINS: ResourceSpec<Domain> = {
  title: 'Domains',
  noun: 'domain',
  intro:
    'Your own domain names for short links. Each must point to this service (an A or CNAME record) and be verified with a TXT record: each domain below shows its records.',
  empty: 'No branded domains yet: add one with "New domain".',
  created: 'Domain added: create the DNS records shown with it, then press “Verify”.',
  fields: [
    {
      name: 'domain',
      label: 'Domain',
      kind: 'url',
      required: true,
      createOnly: true,
      maxLength: 270,
      placeholder: 'https://go.example.com',
      hint: 'With http:// or https://, no path. Its DNS must already point to this service: if it does not, the message says where.',
    },
    {
      name: 'redirectroot',
      label: 'Root redirect',
      kind: 'url',
      placeholder: 'https://www.example.com',
      hint: `Where visitors of the domain itself go. ${REDIRECT_HINT}`,
    },
    {
      name: 'redirect404',
      label: 'Not-found redirect',
      kind: 'url',
      placeholder: 'https://www.example.com/404',
      hint: `Where unknown short links on the domain go. ${REDIRECT_HINT}`,
    },
  ],
  list: (query) =>
    call(client.GET('/api/domains', { params: { query } })).then(({ data }) => ({
      ...data,
      items: data.domains,
    })),
  name: hostOf,
  details: (d) => (
    <dl>
      <dt>Status</dt>
      <dd>
        <span className="badge">{d.verified ? 'Verified' : 'Not verified'}</span>
      </dd>
      <dt>Address</dt>
      <dd>{d.domain}</dd>
      <dt>Root redirect</dt>
      <dd>{d.redirectroot || 'None'}</dd>
      <dt>Not-found redirect</dt>
      <dd>{d.redirect404 || 'None'}</dd>
    </dl>
  ),
  values: (d) => ({ redirectroot: d.redirectroot, redirect404: d.redirect404 }),
  create: (v) =>
    call(client.POST('/api/domain/add', { body: { domain: text(v, 'domain'), ...redirects(v) } })),
  update: (id, v) =>
    call(client.PUT('/api/domain/{id}/update', { params: { path: { id } }, body: redirects(v) })),
  remove: (id) => call(client.DELETE('/api/domain/{id}/delete', { params: { path: { id } } })),
  extra: (d, reload) => <DnsSetup domain={d} reload={reload} />,
};

/** The branded domains page (`/domains`). */
export function DomainsPage(props: { sub: string }) {
  void props.sub;
  return <ResourcePage spec={DOMAINS} />;
}
