import { pipeline } from 'node:stream/promises';

import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { stringify } from 'csv-stringify';
import { Response } from 'express';
import { Pool, PoolClient } from 'pg';
import QueryStream from 'pg-query-stream';
import { DataSource } from 'typeorm';

import { PlanService, Principal, PublicUrls } from '@app/common';
import { RangeQuery } from '@app/stats';

import { StatsService } from './stats.service';

/**
 * Rows fetched from Postgres per round trip of the cursor (and held at most, per export). Measured
 * on 100 000 links: 500 streams as fast as 2000 and keeps the rows young enough to die in the
 * young generation (2000: the api's RSS grew ~50 MB of garbage promoted to the old space).
 */
const BATCH_ROWS = 500;

/** `GET /api/urls/export` columns (CONTRACT: Statistics). */
const LINK_COLUMNS = [
  'id',
  'alias',
  'shorturl',
  'longurl',
  'title',
  'domain',
  'campaign',
  'clicks',
  'uniqueClicks',
  'date',
];

/**
 * The links export's query: $1 the owner, $2 PUBLIC_URL (short URLs of links without a branded
 * domain). Newest first; totals as folded. (The statistics bench runs it under COPY as baseline.)
 */
export const LINKS_EXPORT_SQL = `/* export:links */
SELECT l.id, l.alias,
       COALESCE(rtrim(dm.domain, '/'), $2) || '/' || l.alias AS shorturl,
       l.url AS longurl, l.title, COALESCE(dm.host, '') AS domain,
       l.campaign_id AS campaign,
       COALESCE(t.clicks, 0) AS clicks, COALESCE(t.uniques, 0) AS "uniqueClicks",
       to_char(l.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS date
  FROM links l
  LEFT JOIN domains dm ON dm.id = l.domain_id
  LEFT JOIN link_stats_total t ON t.link_id = l.id
 WHERE l.user_id = $1 AND l.kind = 'link'
 ORDER BY l.id DESC`;

/** `GET /api/url/:id/stats/export` columns. */
const STATS_COLUMNS = ['date', 'dimension', 'value', 'clicks'];

/** Dimension codes of link_stats_dims → their names in the export. */
const DIMENSION_NAMES = `CASE d.dim WHEN 'co' THEN 'country' WHEN 're' THEN 'referrer' WHEN 'br' THEN 'browser'
  WHEN 'os' THEN 'os' WHEN 'so' THEN 'social' WHEN 'de' THEN 'device' WHEN 'la' THEN 'language' ELSE d.dim END`;

/**
 * CSV exports (plan feature `export`), streamed: a Postgres cursor (pg-query-stream) feeds
 * csv-stringify, which feeds the response, with backpressure all the way, so memory holds a
 * batch of rows whatever the number of rows. Cells starting with =, +, -, @, tab or CR get a
 * leading ' (csv-stringify's escape_formulas): no spreadsheet formula injection. A client that
 * goes away destroys the pipeline: the cursor is closed and the connection goes back to the pool.
 * Exports read what the worker has folded into Postgres (every few seconds).
 */
@Injectable()
export class StatsExportService {
  private readonly logger = new Logger(StatsExportService.name);

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly plans: PlanService,
    private readonly stats: StatsService,
    private readonly urls: PublicUrls,
  ) {}

  /** Every short link of the caller, newest first. */
  async links(auth: Principal, res: Response): Promise<void> {
    this.plans.assertFeature(auth, 'export');
    await this.stream(res, 'links.csv', LINK_COLUMNS, LINKS_EXPORT_SQL, [
      auth.user.id,
      this.urls.base,
    ]);
  }

  /** One row per day and dimension value of a link over the range (`from`, `to`; retention applies). */
  async linkStats(auth: Principal, id: number, query: RangeQuery, res: Response): Promise<void> {
    this.plans.assertFeature(auth, 'export');
    const range = this.stats.range(auth, query);
    const linkId = await this.stats.linkId(auth, id);
    await this.stream(
      res,
      `link-${linkId}-stats-${range.from}-${range.to}.csv`,
      STATS_COLUMNS,
      `/* export:stats */
       SELECT to_char(d.day, 'YYYY-MM-DD') AS date, ${DIMENSION_NAMES} AS dimension,
              d.label AS value, d.count AS clicks
         FROM link_stats_dims d
        WHERE d.link_id = $1 AND d.day BETWEEN $2 AND $3
        ORDER BY d.day, dimension, d.count DESC, d.label`,
      [linkId, range.from, range.to],
    );
  }

  private async stream(
    res: Response,
    filename: string,
    columns: string[],
    sql: string,
    params: unknown[],
  ): Promise<void> {
    const pool = (this.db.driver as unknown as { master: Pool }).master;
    const client: PoolClient = await pool.connect();
    let broken = false;
    try {
      // rows as arrays, in the order of `columns`: no object per row for the CSV writer to walk
      const rows = client.query(
        new QueryStream(sql, params, { batchSize: BATCH_ROWS, rowMode: 'array' }),
      );
      res.status(200);
      res.setHeader('Content-Type', 'text/csv; charset=utf-8');
      res.setHeader('Content-Disposition', `attachment; filename="${filename}"`);
      res.setHeader('Cache-Control', 'no-store');
      await pipeline(rows, stringify({ header: true, columns, escape_formulas: true }), res);
    } catch (err) {
      broken = true;
      if (!res.headersSent) {
        // nothing sent yet: the error filter answers with the JSON envelope instead
        for (const h of ['Content-Type', 'Content-Disposition', 'Cache-Control'])
          res.removeHeader(h);
        throw err;
      }
      // the client went away, or Postgres failed mid-way: the response is cut short
      if ((err as { code?: string }).code !== 'ERR_STREAM_PREMATURE_CLOSE')
        this.logger.warn(`export ${filename} cut short: ${(err as Error).message}`);
      res.destroy();
    } finally {
      client.release(broken);
    }
  }
}
