import { getDomain } from 'tldts';

import { formatDateTime } from '@app/common';
import { HealthProbe, HealthStatus, WebhookEvent } from '@app/database';

import { ProbeResult } from './target-probe';

/** Probes kept per link (newest first). */
export const HISTORY = 20;
/** Good probes in a row that end a broken status (hysteresis). */
export const RECOVER_AFTER = 2;

/** The state of a link's target before a probe, as the claim read it. */
export interface HealthBefore {
  /** the URL the stored state is about */
  stateUrl: string;
  /** the link's URL now (a different one starts the state over) */
  url: string;
  status: HealthStatus;
  fails: number;
  oks: number;
  since: Date | null;
  domain: string | null;
  driftedTo: string | null;
  history: HealthProbe[];
}

/** The state after a probe, and the events it causes. */
export interface HealthAfter {
  status: HealthStatus;
  fails: number;
  oks: number;
  since: Date | null;
  domain: string | null;
  driftedTo: string | null;
  history: HealthProbe[];
  /** `broken` or `recovered` when the status crossed; `drifted` with the new domain. */
  events: Array<
    | { event: Extract<WebhookEvent, 'link.broken' | 'link.recovered'> }
    | { event: Extract<WebhookEvent, 'link.drifted'>; from: string; to: string }
  >;
}

/**
 * The registrable domain of a URL's host by the Public Suffix List (`www.shop.example.co.uk` →
 * `example.co.uk`), or the host itself when it has none (an address, `localhost`).
 */
export function registrableDomain(url: string): string | null {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return null;
  }
  if (!host) return null;
  return getDomain(host, { allowPrivateDomains: true }) ?? host;
}

/**
 * One probe applied to a link's state: `threshold` failures in a row make it broken,
 * RECOVER_AFTER good probes in a row make a broken link ok again (an unknown link is ok at its
 * first good probe), each crossing an event. The first good probe after the URL was set records
 * the registrable domain its redirects end on; a later good probe ending on another one is
 * `link.drifted`, once per new domain (again only after it came back or moved on).
 */
export function applyProbe(
  before: HealthBefore,
  probe: ProbeResult,
  threshold: number,
  now: Date,
): HealthAfter {
  const fresh = before.stateUrl !== before.url;
  let status: HealthStatus = fresh ? 'unknown' : before.status;
  let since = fresh ? null : before.since;
  let domain = fresh ? null : before.domain;
  let driftedTo = fresh ? null : before.driftedTo;
  let fails = fresh ? 0 : before.fails;
  let oks = fresh ? 0 : before.oks;
  const events: HealthAfter['events'] = [];
  if (probe.ok) {
    oks += 1;
    fails = 0;
    if (status === 'unknown' || (status === 'broken' && oks >= RECOVER_AFTER)) {
      if (status === 'broken') events.push({ event: 'link.recovered' });
      status = 'ok';
      since = now;
    }
    const final = probe.finalUrl ? registrableDomain(probe.finalUrl) : null;
    if (final !== null) {
      if (domain === null) domain = final;
      else if (final === domain) driftedTo = null;
      else if (final !== driftedTo) {
        events.push({ event: 'link.drifted', from: domain, to: final });
        driftedTo = final;
      }
    }
  } else {
    fails += 1;
    oks = 0;
    if (status !== 'broken' && fails >= threshold) {
      events.push({ event: 'link.broken' });
      status = 'broken';
      since = now;
    }
  }
  const entry: HealthProbe = {
    date: formatDateTime(now) as string,
    httpstatus: probe.httpstatus,
    error: probe.error,
    ms: probe.ms,
  };
  const history = [entry, ...before.history].slice(0, HISTORY);
  return { status, fails, oks, since, domain, driftedTo, history, events };
}
