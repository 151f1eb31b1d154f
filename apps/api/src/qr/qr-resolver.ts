import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { ShortCodeTakedownEvent } from '@app/common';
import { prepared, QrType, queryPrepared } from '@app/database';
import { CacheBus, SharedCache } from '@app/redis';

import { QrData } from './qr-payload';

/** What the public `/q/<code>` handler needs to answer a scan. */
export interface ResolvedQr {
  qrId: number;
  linkId: number;
  userId: number;
  type: QrType;
  data: QrData;
  /** An admin took the code down: scans answer the 451 page. */
  disabled: boolean;
}

/** A scan's read on a cache miss, prepared (parsed and planned once per connection). */
const RESOLVE_QR = prepared(
  'qr_resolver_code',
  `SELECT q.id AS qr_id, l.id AS link_id, l.user_id, q.type, q.data,
          l.disabled_at IS NOT NULL AS disabled
     FROM links l JOIN qr_codes q ON q.link_id = l.id
    WHERE l.alias = $1 AND l.kind = 'qr'`,
);

interface QrRow {
  qr_id: number;
  link_id: number;
  user_id: number;
  type: QrType;
  data: QrData;
  disabled: boolean;
}

/**
 * Short code → QR code, for the public handler: in-process LRU → Redis → Postgres, consistent
 * across replicas by the rules of SharedCache (libs/redis). Changes (update, delete) call `evict`
 * after they commit.
 */
@Injectable()
export class QrResolver implements OnModuleDestroy {
  private readonly codes: SharedCache<ResolvedQr>;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    bus: CacheBus,
  ) {
    this.codes = bus.cache<ResolvedQr>({
      name: 'qr',
      max: 10_000,
      ttlMs: 60_000,
      missingTtlMs: 5_000,
      remote: {
        ttlSeconds: 600,
        missingTtlSeconds: 30,
        encode: (qr) => JSON.stringify(qr),
        decode: (raw) => JSON.parse(raw) as ResolvedQr,
      },
    });
  }

  onModuleDestroy(): void {
    this.codes.close();
  }

  resolve(code: string): Promise<ResolvedQr | null> {
    return this.codes.get(code, this.load);
  }

  /** Forgets codes on every replica (after an update or a delete has committed; a new code too). */
  async evict(...codes: string[]): Promise<void> {
    await this.codes.invalidate(codes);
  }

  /** An admin disabled or enabled a QR code (Takedowns): every replica answers the change. */
  @OnEvent(ShortCodeTakedownEvent.event, { promisify: true })
  async onTakedown(event: ShortCodeTakedownEvent): Promise<void> {
    if (event.kind === 'qr') await this.evict(...event.aliases);
  }

  private readonly load = async (code: string): Promise<ResolvedQr | null> => {
    const [row] = await queryPrepared<QrRow>(this.db, RESOLVE_QR, [code]);
    if (!row) return null;
    return {
      qrId: row.qr_id,
      linkId: row.link_id,
      userId: row.user_id,
      type: row.type,
      data: row.data,
      disabled: row.disabled === true,
    };
  };
}
