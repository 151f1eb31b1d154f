import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { NotFoundError, Principal } from '@app/common';

import { LinkHealthRow, LinkHealthView, linkHealthData } from './dto/link-health.view';

/**
 * `GET /api/url/:id/health`: the link (the workspace owner's, kind `link`, else the same 404 as
 * `GET /api/url/:id`) and its `link_health` row, which the worker writes, in one read.
 */
@Injectable()
export class LinkHealthReader {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async get(auth: Principal, id: number): Promise<LinkHealthView> {
    const rows: LinkHealthRow[] = await this.db.query(
      `SELECT l.url, h.url AS state_url, h.status, h.checked_at, h.http_status, h.error, h.since,
              h.history
         FROM links l LEFT JOIN link_health h ON h.link_id = l.id
        WHERE l.id = $1 AND l.user_id = $2 AND l.kind = 'link'`,
      [id, auth.user.id],
    );
    if (!rows.length) throw new NotFoundError('Link');
    return { data: linkHealthData(rows[0]) };
  }
}
