import { Module } from '@nestjs/common';

import { LinkSnapshotWriter } from './link-snapshot-writer';

/** The link snapshot (SNAPSHOT_SECONDS): written into STORAGE_DIR for the api's store outages. */
@Module({ providers: [LinkSnapshotWriter], exports: [LinkSnapshotWriter] })
export class PermanenceJobsModule {}
