import { EntityManager } from 'typeorm';

/** What is known of a visitor, as the counters keep it: no address, nothing that identifies them. */
export interface VisitProfile {
  country: string | null;
  referrer: string | null;
  browser: string | null;
  os: string | null;
  /** mobile, tablet, desktop, other (null in counters written before devices were recorded) */
  device: string | null;
  /** ISO 639-1 of the visitor's first language, or Unknown (null likewise) */
  language: string | null;
}

/** Visits of one link, one day and one profile, as a fold batch applies them. */
export interface FoldedVisits extends VisitProfile {
  linkId: number;
  /** `YYYY-MM-DD` (UTC) */
  day: string;
  count: number;
}

/**
 * Told, inside the fold's transaction, about the visits of each batch the moment it is applied
 * (a batch is applied once: a crash before the commit applies it again, with the listener's
 * writes, and after it never). The worker's webhooks use it for link.clicked / qr.scanned.
 */
export interface FoldListener {
  onFold(em: EntityManager, visits: FoldedVisits[]): Promise<void>;
}

/** Injection token of the optional FoldListener of StatsFold. */
export const FOLD_LISTENER = Symbol('FOLD_LISTENER');
