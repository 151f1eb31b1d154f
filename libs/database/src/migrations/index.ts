import { InitialSchema1732200000000 } from './1732200000000-initial-schema';
import { VisitStatistics1732200001000 } from './1732200001000-visit-statistics';
import { LinkOptions1732200002000 } from './1732200002000-link-options';
import { Trust1732200003000 } from './1732200003000-trust';
import { BioPages1732200004000 } from './1732200004000-bio-pages';
import { StatsRanges1732200005000 } from './1732200005000-stats-ranges';
import { WebhooksImport1732200006000 } from './1732200006000-webhooks-import';
import { StatsMonthDims1732200007000 } from './1732200007000-stats-month-dims';
import { Takedowns1732200010000 } from './1732200010000-takedowns';
import { ListScale1732300020000 } from './1732300020000-list-scale';
import { Teams1732300030000 } from './1732300030000-teams';
import { Reports1732300040000 } from './1732300040000-reports';
import { LinkFlags1732400010000 } from './1732400010000-link-flags';
import { LinkHealth1732400020000 } from './1732400020000-link-health';
import { StatsHourly1732400040000 } from './1732400040000-stats-hourly';
import { CampaignRotation1732400070000 } from './1732400070000-campaign-rotation';
import { OwnedCounts1732400071000 } from './1732400071000-owned-counts';
import { ChannelItemCounts1732400072000 } from './1732400072000-channel-item-counts';
import { AuditCounts1732400080000 } from './1732400080000-audit-counts';
import { SearchPerUser1732400100000 } from './1732400100000-search-per-user';
import { SearchKeys1732400110000 } from './1732400110000-search-keys';
import { SearchKeysPlpgsql1732400120000 } from './1732400120000-search-keys-plpgsql';

/**
 * Every migration, in order. Listed by class (not by glob) so the webpack bundle and the
 * TypeORM CLI see the same set. A new migration: add a timestamped file and append it here.
 */
export const MIGRATIONS = [
  InitialSchema1732200000000,
  VisitStatistics1732200001000,
  LinkOptions1732200002000,
  Trust1732200003000,
  BioPages1732200004000,
  StatsRanges1732200005000,
  WebhooksImport1732200006000,
  StatsMonthDims1732200007000,
  Takedowns1732200010000,
  ListScale1732300020000,
  Teams1732300030000,
  Reports1732300040000,
  LinkFlags1732400010000,
  LinkHealth1732400020000,
  StatsHourly1732400040000,
  CampaignRotation1732400070000,
  OwnedCounts1732400071000,
  ChannelItemCounts1732400072000,
  AuditCounts1732400080000,
  SearchPerUser1732400100000,
  SearchKeys1732400110000,
  SearchKeysPlpgsql1732400120000,
];
