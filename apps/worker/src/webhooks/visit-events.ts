import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';

import { PublicUrls } from '@app/common';
import { pgArray } from '@app/database';
import { FoldedVisits, FoldListener, VisitProfile } from '@app/stats';
import { WebhookDeliveries } from '@app/webhooks';

/** Visits per delivery of link.clicked / qr.scanned. */
export const VISITS_PER_DELIVERY = 100;

/** One visit as a webhook receives it: no address, nothing that identifies the visitor. */
export interface VisitEventItem extends VisitProfile {
  /** the UTC day of the visit, `YYYY-MM-DD` (visit counters are kept per day) */
  date: string;
}

interface Subscriber {
  webhook_id: number;
  link_id: number;
  kind: 'link' | 'qr';
  alias: string;
  domain: string | null;
  qr_id: number | null;
}

/**
 * link.clicked and qr.scanned: built from the visits a fold batch applies, inside the fold's
 * transaction (so a batch's events exist exactly when its counts do, and the redirect does no
 * work for them). Bots never reach the counters. Each delivery holds up to 100 visits of one
 * link; a webhook's deliveries are spaced one second apart (`not_before`, from the webhook's
 * `click_slot`), so a receiver gets at most one per second.
 */
@Injectable()
export class VisitEvents implements FoldListener {
  constructor(
    private readonly urls: PublicUrls,
    private readonly outbox: WebhookDeliveries,
  ) {}

  async onFold(em: EntityManager, visits: FoldedVisits[]): Promise<void> {
    const linkIds = [...new Set(visits.map((v) => v.linkId))];
    const subscribers: Subscriber[] = await em.query(
      `SELECT w.id AS webhook_id, l.id AS link_id, l.kind, l.alias, d.domain, q.id AS qr_id
         FROM links l
         JOIN webhooks w ON w.user_id = l.user_id AND w.disabled_at IS NULL
              AND ((l.kind = 'link' AND 'link.clicked' = ANY(w.events))
                OR (l.kind = 'qr' AND 'qr.scanned' = ANY(w.events)))
         LEFT JOIN domains d ON d.id = l.domain_id
         LEFT JOIN qr_codes q ON q.link_id = l.id
        WHERE l.id = ANY($1::int[])
        ORDER BY w.id, l.id`,
      [pgArray(linkIds)],
    );
    if (!subscribers.length) return;

    const byLink = new Map<number, VisitEventItem[][]>();
    for (const s of subscribers) {
      if (!byLink.has(s.link_id)) byLink.set(s.link_id, chunks(visits, s.link_id));
    }
    const byWebhook = new Map<number, Array<{ event: string; data: object }>>();
    for (const s of subscribers) {
      const list = byWebhook.get(s.webhook_id) ?? [];
      byWebhook.set(s.webhook_id, list);
      for (const chunk of byLink.get(s.link_id) ?? []) {
        list.push(
          s.kind === 'qr'
            ? {
                event: 'qr.scanned',
                data: { id: s.qr_id, link: this.urls.qr(s.alias), visits: chunk },
              }
            : {
                event: 'link.clicked',
                data: {
                  id: s.link_id,
                  alias: s.alias,
                  shorturl: this.urls.short(s.alias, s.domain),
                  visits: chunk,
                },
              },
        );
      }
    }
    for (const [webhookId, deliveries] of byWebhook) {
      // Reserve one second per delivery on the webhook's clock. The first slot is a second ahead,
      // so every delivery of the batch leaves at its slot (the relay hands them over within that
      // second), not at whatever moment the relay gets to it.
      // an UPDATE answers [rows, affected]
      const [[{ first }]]: [Array<{ first: Date }>, number] = await em.query(
        `UPDATE webhooks SET click_slot = GREATEST(click_slot, now() + interval '1 second') + $2::int * interval '1 second'
          WHERE id = $1 RETURNING click_slot - $2::int * interval '1 second' AS first`,
        [webhookId, deliveries.length],
      );
      await this.outbox.insertSpaced(em, webhookId, deliveries, first);
    }
  }
}

/** The visits of one link, one item per visit, in deliveries of at most 100. */
function chunks(visits: FoldedVisits[], linkId: number): VisitEventItem[][] {
  const out: VisitEventItem[][] = [];
  let current: VisitEventItem[] = [];
  for (const v of visits) {
    if (v.linkId !== linkId) continue;
    const item: VisitEventItem = {
      date: v.day,
      country: v.country,
      referrer: v.referrer,
      browser: v.browser,
      os: v.os,
      device: v.device,
      language: v.language,
    };
    for (let i = 0; i < v.count; i++) {
      current.push(item);
      if (current.length === VISITS_PER_DELIVERY) {
        out.push(current);
        current = [];
      }
    }
  }
  if (current.length) out.push(current);
  return out;
}
