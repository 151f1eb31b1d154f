import { Module } from '@nestjs/common';

import { LinkSnapshot } from './link-snapshot';
import { OutageVisits } from './outage-visits';

/**
 * Short links that keep answering while Postgres and Redis are both unreachable
 * (docs/link-permanence.md): the worker's signed link snapshot, loaded in the background
 * (LinkSnapshot), and the visits of the outage held until Redis is back (OutageVisits). The
 * redirector and PublicResponder use them.
 */
@Module({ providers: [LinkSnapshot, OutageVisits], exports: [LinkSnapshot, OutageVisits] })
export class PermanenceModule {}
