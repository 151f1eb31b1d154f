import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import { Injectable, Logger } from '@nestjs/common';
import { Response } from 'express';
import { escapeLiteral } from 'pg';
import { to as copyTo } from 'pg-copy-streams';

import { AppError, PlanService, Principal, PublicUrls } from '@app/common';
import { AppConfig } from '@app/config';
import { RangeQuery } from '@app/stats';

import { ExportSlots } from './export-slots';
import { StatsService } from './stats.service';

/**
 * CSV bytes an export buffers between Postgres and the client: Postgres keeps writing while the
 * response drains, rather than waiting on each 16 KB (the stream default).
 */
const EXPORT_BUFFER_BYTES = 1 << 20;

/** One CSV column: its header, its SQL expression, and whether clients wrote it (guarded). */
interface Column {
  name: string;
  sql: string;
  text?: boolean;
}

/**
 * The first characters a spreadsheet reads as the start of a formula, as code points: = + - @ tab
 * CR and the full-width = + - @ (OWASP's CSV injection list; the set csv-stringify's
 * `escape_formulas` uses).
 */
const FORMULA_STARTS = ['=', '+', '-', '@', '\t', '\r', '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20']
  .map((c) => c.codePointAt(0))
  .join(', ');

/**
 * A SQL text expression whose value gets a leading ' when it starts like a formula, so a
 * spreadsheet shows it as text; other values (and NULL) are unchanged. (`ascii` of the first
 * character: an integer test, no substring per cell.)
 */
export function formulaSafe(expr: string): string {
  return `CASE WHEN ascii(${expr}) IN (${FORMULA_STARTS}) THEN '''' || ${expr} ELSE ${expr} END`;
}

/** The SELECT list: each column named by its CSV header, text columns guarded unless `bare`. */
function selectList(columns: Column[], bare = false): string {
  return columns
    .map((c) => `${c.text && !bare ? formulaSafe(c.sql) : c.sql} AS "${c.name}"`)
    .join(',\n       ');
}

/** `GET /api/urls/export` columns (docs/statistics.md#exports); $2 is PUBLIC_URL. */
const LINK_COLUMNS: Column[] = [
  { name: 'id', sql: 'l.id' },
  { name: 'alias', sql: 'l.alias', text: true },
  { name: 'shorturl', sql: `COALESCE(rtrim(dm.domain, '/'), $2) || '/' || l.alias`, text: true },
  { name: 'longurl', sql: 'l.url', text: true },
  { name: 'title', sql: 'l.title', text: true },
  { name: 'domain', sql: `COALESCE(dm.host, '')`, text: true },
  { name: 'campaign', sql: 'l.campaign_id' },
  { name: 'clicks', sql: 'COALESCE(t.clicks, 0)' },
  { name: 'uniqueClicks', sql: 'COALESCE(t.uniques, 0)' },
  { name: 'date', sql: `to_char(l.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS')` },
];

/**
 * The links export's query: $1 the owner, $2 PUBLIC_URL (short URLs of links without a branded
 * domain). Newest first; totals as folded. `bare`: without the formula guard, the plain SELECT
 * that the statistics bench runs under COPY as its baseline.
 */
export function linksExportSql(bare = false): string {
  return `SELECT ${selectList(LINK_COLUMNS, bare)}
  FROM links l
  LEFT JOIN domains dm ON dm.id = l.domain_id
  LEFT JOIN link_stats_total t ON t.link_id = l.id
 WHERE l.user_id = $1 AND l.kind = 'link'
 ORDER BY l.id DESC`;
}

/** Dimension codes of link_stats_dims → their names in the export. */
const DIMENSION_NAMES = `CASE d.dim WHEN 'co' THEN 'country' WHEN 're' THEN 'referrer' WHEN 'br' THEN 'browser'
  WHEN 'os' THEN 'os' WHEN 'so' THEN 'social' WHEN 'de' THEN 'device' WHEN 'la' THEN 'language'
  WHEN 'ci' THEN 'city' WHEN 'rg' THEN 'region' WHEN 'us' THEN 'utm_source' WHEN 'um' THEN 'utm_medium'
  WHEN 'uc' THEN 'utm_campaign' WHEN 'ru' THEN 'referrer_url' WHEN 'dm' THEN 'device_model' ELSE d.dim END`;

/** `GET /api/url/:id/stats/export`: a row per day and dimension value; $1 the link, $2..$3 the days. */
const STATS_EXPORT_SQL = `SELECT ${selectList([
  { name: 'date', sql: `to_char(d.day, 'YYYY-MM-DD')` },
  { name: 'dimension', sql: DIMENSION_NAMES },
  { name: 'value', sql: 'd.label', text: true },
  { name: 'clicks', sql: 'd.count' },
])}
  FROM link_stats_dims d
 WHERE d.link_id = $1 AND d.day BETWEEN $2 AND $3
 ORDER BY d.day, 2, d.count DESC, d.label`;

/** A pass-through stage that calls `first` when the first chunk goes by. */
function onFirstChunk(first: () => void): Transform {
  let seen = false;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (!seen) {
        seen = true;
        first();
      }
      done(null, chunk);
    },
  });
}

/**
 * A query's `$1`, `$2`… replaced by literals, as COPY takes no bind parameters: integers as
 * digits, strings quoted by pg's escapeLiteral. Anything else is a programming error.
 */
export function inlineParams(sql: string, params: Array<string | number>): string {
  return sql.replace(/\$(\d+)\b/g, (_, n: string) => {
    const value = params[Number(n) - 1];
    if (typeof value === 'number') {
      if (!Number.isSafeInteger(value)) throw new Error(`export parameter $${n}: not an integer`);
      return String(value);
    }
    if (typeof value !== 'string') throw new Error(`export parameter $${n}: missing`);
    return escapeLiteral(value);
  });
}

/**
 * CSV exports (plan feature `export`), streamed: Postgres writes the CSV itself
 * (`COPY (SELECT …) TO STDOUT (FORMAT csv, HEADER)`, RFC 4180 quoting), pg-copy-streams hands its
 * chunks on, and the response takes them with backpressure all the way, so the api holds a few
 * chunks whatever the number of rows and spends no CPU per row. Cells clients wrote that start
 * like a formula (=, +, -, @, tab, CR) get a leading ' in the SELECT (`formulaSafe`): no
 * spreadsheet formula injection. Exports run on connections of their own (ExportSlots: a few
 * per process, EXPORTS_PER_USER per user, `statement_timeout`), never on the pool of the rest of
 * the api. A client that goes away, or stops reading for EXPORT_STALL_SECONDS, destroys the
 * pipeline: the connection is discarded, which ends the COPY on the server. Exports read what
 * the worker has folded into Postgres (every few seconds).
 */
@Injectable()
export class StatsExportService {
  private readonly logger = new Logger(StatsExportService.name);
  private readonly stallMs: number;

  constructor(
    config: AppConfig,
    private readonly slots: ExportSlots,
    private readonly plans: PlanService,
    private readonly stats: StatsService,
    private readonly urls: PublicUrls,
  ) {
    this.stallMs = config.EXPORT_STALL_SECONDS * 1000;
  }

  /** Every short link of the caller, newest first. */
  async links(auth: Principal, res: Response): Promise<void> {
    this.plans.assertFeature(auth, 'export');
    await this.stream(auth, res, 'links.csv', 'links', linksExportSql(), [
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
      auth,
      res,
      `link-${linkId}-stats-${range.from}-${range.to}.csv`,
      'stats',
      STATS_EXPORT_SQL,
      [linkId, range.from, range.to],
    );
  }

  private async stream(
    auth: Principal,
    res: Response,
    filename: string,
    tag: string,
    select: string,
    params: Array<string | number>,
  ): Promise<void> {
    // the leading comment names the export in pg_stat_activity
    const copy = `/* export:${tag} */ COPY (${inlineParams(select, params)}) TO STDOUT WITH (FORMAT csv, HEADER)`;
    const lease = await this.slots.acquire(auth.user.id);
    let broken = false;
    let stalled = false;
    // Until the first rows, no timer on the socket: the query may take a while to produce them
    // (a sort, a lock), and `statement_timeout` bounds that wait with a 503 below. From the first
    // rows on, no byte sent for EXPORT_STALL_SECONDS (the socket's inactivity timer: its writes
    // wait on a client that stopped reading) cuts the export off, which ends the pipeline below.
    res.setTimeout(0);
    const armStall = (): void => {
      res.setTimeout(this.stallMs, () => {
        stalled = true;
        res.destroy();
      });
    };
    try {
      const csv = lease.client.query(copyTo(copy, { highWaterMark: EXPORT_BUFFER_BYTES }));
      res.status(200);
      res.setHeader('Content-Type', 'text/csv; charset=utf-8');
      res.setHeader('Content-Disposition', `attachment; filename="${filename}"`);
      res.setHeader('Cache-Control', 'no-store');
      await pipeline(csv, onFirstChunk(armStall), res);
    } catch (err) {
      broken = true;
      if (!res.headersSent && !stalled) {
        // nothing sent yet: the error filter answers with the JSON envelope instead
        for (const h of ['Content-Type', 'Content-Disposition', 'Cache-Control'])
          res.removeHeader(h);
        // statement_timeout before the first row
        if ((err as { code?: string }).code === '57014')
          throw new AppError(503, 'The export took too long; try a shorter range');
        throw err;
      }
      // the client went away or stopped reading, or Postgres failed mid-way: cut short
      if (stalled)
        this.logger.log(`export ${filename} cut off: no progress for ${this.stallMs / 1000} s`);
      else if ((err as { code?: string }).code !== 'ERR_STREAM_PREMATURE_CLOSE')
        this.logger.warn(`export ${filename} cut short: ${(err as Error).message}`);
      res.destroy();
    } finally {
      lease.release(broken);
    }
  }
}
