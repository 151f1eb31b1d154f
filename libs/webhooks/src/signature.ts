import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * `X-Webhook-Signature`: `sha256=` and the hex HMAC-SHA256 of `<timestamp>.<body>` with the
 * webhook's secret, where `timestamp` is `X-Webhook-Timestamp` (Unix seconds) and `body` the
 * exact bytes sent.
 */
export function webhookSignature(secret: string, timestamp: number | string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** What a receiver does: recompute and compare in constant time. */
export function verifyWebhookSignature(
  secret: string,
  timestamp: string,
  body: string,
  signature: string,
): boolean {
  const expected = Buffer.from(webhookSignature(secret, timestamp, body));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
