import { request as httpRequest, IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';

import { Injectable } from '@nestjs/common';

import { AppConfig } from '@app/config';
import { isPublicAddress, publicOnlyLookup } from '@app/qr';
import { allowHint, isAllowedTarget, targetHost } from '@app/webhooks';

/** Redirects followed (each hop checked again) before a probe gives up. */
export const MAX_HOPS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/**
 * Answers that mean "the page is there, but not for an anonymous robot": a login (401, 407), a
 * bot wall (403) or a rate limit (429). Every other 4xx and 5xx is a failure.
 */
const REFUSING_BUT_ALIVE = new Set([401, 403, 407, 429]);
const USER_AGENT = 'link-management-health/1.0 (+destination health check)';

/** The outcome of one probe of a target. */
export interface ProbeResult {
  /** the final answer's HTTP status (after redirects), or null when there was none */
  httpstatus: number | null;
  /** why the probe failed, or null when it was good */
  error: string | null;
  ok: boolean;
  /** the probe's whole time, redirects included */
  ms: number;
  /** the URL the redirects ended on (the final answer's), or null without an answer */
  finalUrl: string | null;
}

type Answer =
  { kind: 'answer'; status: number; location: string | null } | { kind: 'failed'; error: string };

class Refused extends Error {}

/**
 * Probes a link's target by the webhooks' address rules (WebhookSender's, the same helpers): a
 * literal address must be public, a host name is resolved by the connection's own lookup with
 * every DNS answer checked (the connection goes to a checked address), hosts named in
 * WEBHOOK_ALLOW_HOSTS are exempt. HEAD first, GET when HEAD gets an error status (servers that
 * refuse or mishandle HEAD: 405, 501, …); no body is ever read (the GET's socket is closed once
 * the headers are in). Redirects are followed by hand, each hop checked again, at most MAX_HOPS;
 * the whole probe has HEALTH_TIMEOUT_MS.
 */
@Injectable()
export class TargetProbe {
  constructor(private readonly config: AppConfig) {}

  async probe(target: string): Promise<ProbeResult> {
    const started = Date.now();
    const deadline = started + this.config.HEALTH_TIMEOUT_MS;
    const result = (
      httpstatus: number | null,
      error: string | null,
      finalUrl: string | null,
    ): ProbeResult => ({
      httpstatus,
      error: error === null ? null : error.slice(0, 300),
      ok: error === null,
      ms: Date.now() - started,
      finalUrl,
    });
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return result(null, 'the URL is not valid', null);
    }
    for (let hop = 0; ; hop++) {
      let answer = await this.request(url, 'HEAD', deadline);
      if (answer.kind === 'answer' && answer.status >= 400)
        answer = await this.request(url, 'GET', deadline);
      if (answer.kind === 'failed') return result(null, answer.error, null);
      const { status, location } = answer;
      if (REDIRECTS.has(status) && location) {
        if (hop >= MAX_HOPS) return result(status, `more than ${MAX_HOPS} redirects`, null);
        try {
          url = new URL(location, url);
        } catch {
          return result(status, 'a redirect to an invalid URL', null);
        }
        continue;
      }
      const failed =
        status >= 400 && !REFUSING_BUT_ALIVE.has(status)
          ? `the target answered HTTP ${status}`
          : null;
      return result(status, failed, url.href);
    }
  }

  /** One request: the address rules, then the status and Location of the answer. */
  private request(url: URL, method: 'HEAD' | 'GET', deadline: number): Promise<Answer> {
    const failed = (error: string): Answer => ({ kind: 'failed', error });
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      return Promise.resolve(failed(`refused: a redirect to a ${url.protocol} URL`));
    if (url.username || url.password)
      return Promise.resolve(failed('refused: a URL with credentials'));
    const host = targetHost(url);
    const allowed = isAllowedTarget(url, this.config.WEBHOOK_ALLOW_HOSTS);
    if (!allowed && isIP(host) && !isPublicAddress(host))
      return Promise.resolve(
        failed(`refused: ${host} is a private, loopback or link-local address (${allowHint(url)})`),
      );
    const timeout = deadline - Date.now();
    if (timeout <= 0)
      return Promise.resolve(failed(`no answer within ${this.config.HEALTH_TIMEOUT_MS / 1000} s`));
    const lookup = publicOnlyLookup(
      allowed,
      (name) =>
        new Refused(
          `refused: ${name} resolves to a private, loopback or link-local address (${allowHint(url)})`,
        ),
    );
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<Answer>((resolve) => {
      let settled = false;
      const done = (a: Answer) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(a);
      };
      const req = send(url, {
        method,
        agent: false,
        lookup,
        headers: { 'User-Agent': USER_AGENT, Accept: '*/*' },
      });
      const timer = setTimeout(() => {
        req.destroy();
        done(failed(`no answer within ${this.config.HEALTH_TIMEOUT_MS / 1000} s`));
      }, timeout);
      req.once('response', (res: IncomingMessage) => {
        const location = typeof res.headers.location === 'string' ? res.headers.location : null;
        // never read a body: the status and headers are the answer (what the cut connection
        // reports afterwards is heard and dropped)
        res.on('error', () => undefined);
        res.destroy();
        req.destroy();
        done({ kind: 'answer', status: res.statusCode ?? 0, location });
      });
      // `on`, not `once`: a request destroyed after its answer may still report an error
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (err instanceof Refused) return done(failed(err.message));
        done(failed(`could not connect (${err.code ?? err.message})`));
      });
      req.end();
    });
  }
}
