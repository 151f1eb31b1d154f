import { Injectable } from '@nestjs/common';

import { LinkStatistics, LinkTotals } from './types';

/** Reads statistics: totals folded into Postgres plus the deltas still pending in Redis. */
@Injectable()
export class StatsReader {
  /** The documented statistics object of one link (a QR code's: its link's). */
  async forLink(_linkId: number): Promise<LinkStatistics> {
    throw new Error('StatsReader.forLink: being implemented on main by the lead');
  }

  /** clicks / uniqueClicks of many links at once (list pages). Missing ids get zeros. */
  async totals(_linkIds: number[]): Promise<Map<number, LinkTotals>> {
    throw new Error('StatsReader.totals: being implemented on main by the lead');
  }
}
