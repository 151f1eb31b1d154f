import { Injectable } from '@nestjs/common';

import { VisitInput } from './types';

/**
 * Records a visit in Redis after the response is sent: one pipelined round trip, never throws,
 * never blocks the redirect. Bots, preview fetchers and HEAD requests are not counted.
 */
@Injectable()
export class VisitRecorder {
  /** Fire and forget. */
  record(_visit: VisitInput): void {
    throw new Error('VisitRecorder.record: being implemented on main by the lead');
  }
}
