import { request as httpRequest, IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';

import { Injectable } from '@nestjs/common';

import { AppConfig } from '@app/config';
import { isPublicAddress, publicOnlyLookup } from '@app/qr';
import { allowHint, isAllowedTarget, targetHost, webhookSignature } from '@app/webhooks';

/** A receiver has this long to answer (headers and body). */
export const WEBHOOK_TIMEOUT_MS = 5_000;
/** A receiver's address must accept the connection within this (DNS lookup included). */
export const WEBHOOK_CONNECT_TIMEOUT_MS = 2_000;

/** The outcome of one attempt. */
export interface SendResult {
  /** the receiver's HTTP status, or null when there was no answer */
  status: number | null;
  ok: boolean;
  /** why the attempt failed without an answer, or why the answer is a failure */
  error: string | null;
  /** retrying cannot help (the target is refused) */
  permanent: boolean;
  /** the receiver answered (any status): false after a timeout or a failed connection */
  answered: boolean;
}

class Refused extends Error {}

/**
 * Sends one delivery: POST with the signed headers, 2 s to connect and 5 s for the whole
 * exchange, no redirect followed (a 3xx is a failed attempt). The target must be public, as for
 * QR logos: an address literal is checked before connecting, a host name in the connection's own
 * DNS lookup (every answer, and the connection goes to a checked address). Hosts in
 * WEBHOOK_ALLOW_HOSTS are exempt (an entry with a port: that port only).
 */
@Injectable()
export class WebhookSender {
  timeoutMs = WEBHOOK_TIMEOUT_MS;
  connectTimeoutMs = WEBHOOK_CONNECT_TIMEOUT_MS;

  constructor(private readonly config: AppConfig) {}

  async send(
    target: string,
    secret: string,
    headers: { id: string; event: string },
    body: string,
  ): Promise<SendResult> {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return this.refused('the URL is not valid');
    }
    const host = targetHost(url);
    const allowed = isAllowedTarget(url, this.config.WEBHOOK_ALLOW_HOSTS);
    if (url.protocol !== 'https:' && !(allowed && url.protocol === 'http:'))
      return this.refused(`the URL is not https (${allowHint(url)})`);
    if (!allowed && isIP(host) && !isPublicAddress(host))
      return this.refused(
        `the URL points to a private, loopback or link-local address (${allowHint(url)})`,
      );
    const timestamp = Math.floor(Date.now() / 1000);
    const lookup = publicOnlyLookup(
      allowed,
      (name) =>
        new Refused(
          `${name} resolves to a private, loopback or link-local address (${allowHint(url)})`,
        ),
    );
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<SendResult>((resolve) => {
      let settled = false;
      const done = (r: SendResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearTimeout(connecting);
        resolve(r);
      };
      const req = send(url, {
        method: 'POST',
        agent: false,
        lookup,
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
          'User-Agent': 'link-management-webhooks/1.0',
          'X-Webhook-Id': headers.id,
          'X-Webhook-Event': headers.event,
          'X-Webhook-Timestamp': String(timestamp),
          'X-Webhook-Signature': webhookSignature(secret, timestamp, body),
        },
      });
      const timer = setTimeout(() => {
        req.destroy();
        done(this.silent(`no answer within ${this.timeoutMs / 1000} s`));
      }, this.timeoutMs);
      // a receiver that never accepts must not hold a delivery for the whole answer timeout
      const connecting = setTimeout(() => {
        req.destroy();
        done(this.silent(`could not connect within ${this.connectTimeoutMs / 1000} s`));
      }, this.connectTimeoutMs);
      req.once('socket', (socket) => {
        if (!socket.connecting) return clearTimeout(connecting);
        socket.once('connect', () => clearTimeout(connecting));
      });
      req.once('response', (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        // the answer's body is not needed: read and dropped (the deadline still applies)
        res.on('data', () => undefined);
        res.once('end', () => done(this.answered(status)));
        res.once('error', () => done(this.answered(status)));
      });
      req.once('error', (err: NodeJS.ErrnoException) => {
        if (err instanceof Refused) return done(this.refused(err.message));
        done(this.silent(`could not connect (${err.code ?? err.message})`.slice(0, 300)));
      });
      req.end(body);
    });
  }

  private answered(status: number): SendResult {
    const ok = status >= 200 && status < 300;
    return {
      status,
      ok,
      error: ok
        ? null
        : status >= 300 && status < 400
          ? 'redirects are not followed'
          : `the receiver answered HTTP ${status}`,
      permanent: false,
      answered: true,
    };
  }

  private silent(error: string): SendResult {
    return { status: null, ok: false, error, permanent: false, answered: false };
  }

  private refused(reason: string): SendResult {
    return {
      status: null,
      ok: false,
      error: `refused: ${reason}`,
      permanent: true,
      answered: false,
    };
  }
}
