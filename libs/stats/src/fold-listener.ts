import { EntityManager } from 'typeorm';

/** Visits of one link, one day and one profile, as a fold batch applies them. */
export interface FoldedVisits {
  linkId: number;
  /** `YYYY-MM-DD` (UTC) */
  day: string;
  count: number;
  country: string | null;
  referrer: string | null;
  browser: string | null;
  os: string | null;
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
