import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import {
  AuditLog,
  ConflictError,
  InvalidFieldError,
  NotFoundError,
  pageRequest,
  Paginated,
  Principal,
  PublicUrls,
} from '@app/common';
import { AppConfig } from '@app/config';
import { RedisService } from '@app/redis';

import { Takedowns } from '../takedowns/takedowns';
import { ListReportsDto, ResolveAction } from './dto/report.dto';
import { ReportView } from './dto/report.view';
import {
  REPORT_WINDOW_SECONDS,
  ReportInput,
  reporterHash,
  REPORTS_PER_WINDOW,
  shortLinkParts,
} from './report-rules';

/** Counts one report of the window and answers the count and the seconds left in the window. */
const COUNT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('TTL', KEYS[1])
if ttl < 0 then redis.call('EXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {n, ttl}`;

type CountingRedis = { countReport(key: string, window: number): Promise<[number, number]> };

interface ReportRow {
  id: number;
  created_at: Date;
  reason: string;
  details: string;
  email: string | null;
  status: string;
  resolved_at: Date | null;
  resolved_by: number | null;
  link_id: number;
  alias: string;
  url: string;
  user_id: number;
  domain: string | null;
  disabled_at: Date | null;
  reports: string;
  open: string;
}

const utc = (d: Date | null): string | null =>
  d ? new Date(d).toISOString().slice(0, 19).replace('T', ' ') : null;

/**
 * Abuse reports: the one writer of `abuse_reports`. Anyone reports a short code of this service
 * (the page `/report` and `POST /api/report`, REPORTS_PER_WINDOW per client address and hour);
 * admins list them and resolve them. Resolving a report resolves every open report of the same
 * link the same way (they are about one link: a disable answers them all, and a dismissal says
 * the link was looked at); reports that arrive later open the case again. Disabling goes through
 * Takedowns (the link answers 451 on every replica). The reporter's e-mail is shown to admins
 * only; the address is kept as an HMAC.
 */
@Injectable()
export class ReportsService {
  private readonly logger = new Logger(ReportsService.name);
  private defined = false;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly redis: RedisService,
    private readonly urls: PublicUrls,
    private readonly config: AppConfig,
    private readonly takedowns: Takedowns,
    private readonly audit: AuditLog,
  ) {}

  /** The address's HMAC: what a report keeps of its reporter's address, and its rate-limit key. */
  hash(address: string): string {
    return reporterHash(this.config.secret, address);
  }

  /**
   * Counts one attempt of `address` (accepted or refused): null when within the limit, else the
   * seconds until the window ends. Not counted while Redis is unreachable (logged).
   */
  async limit(address: string): Promise<number | null> {
    if (!this.redis.ready) {
      this.logger.warn('Redis unavailable: report rate limit not enforced');
      return null;
    }
    if (!this.defined) {
      this.redis.client.defineCommand('countReport', { numberOfKeys: 1, lua: COUNT });
      this.defined = true;
    }
    try {
      const [n, ttl] = await (this.redis.client as unknown as CountingRedis).countReport(
        this.redis.key('report', this.hash(address)),
        REPORT_WINDOW_SECONDS,
      );
      return n > REPORTS_PER_WINDOW ? Math.max(1, ttl) : null;
    } catch (err) {
      this.logger.warn(`report rate limit not enforced: ${(err as Error).message}`);
      return null;
    }
  }

  /** Stores a checked report of a short code of this service; 400 naming `url` otherwise. */
  async create(input: ReportInput, address: string): Promise<number> {
    const parts = shortLinkParts(input.url);
    if (!parts) throw new InvalidFieldError('url', 'must be a short link such as https://host/abc');
    if (parts.host !== this.urls.host) {
      const rows: unknown[] = await this.db.query(
        'SELECT 1 FROM domains WHERE host = $1 AND verified_at IS NOT NULL',
        [parts.host],
      );
      if (!rows.length)
        throw new InvalidFieldError('url', `${parts.host} is not a domain of this service`);
    }
    const rows: Array<{ id: number }> = await this.db.query(
      `INSERT INTO abuse_reports (link_id, reason, details, email, reporter_hash)
       SELECT l.id, $2, $3, $4, $5 FROM links l WHERE l.alias = $1
       RETURNING id`,
      [parts.alias, input.reason, input.details, input.email, this.hash(address)],
    );
    if (!rows.length) throw new InvalidFieldError('url', 'no such short link');
    return rows[0].id;
  }

  async list(query: ListReportsDto): Promise<Paginated<ReportView>> {
    const { limit, page, offset } = pageRequest(query);
    const status = query.status ?? null;
    const [rows, count]: [ReportRow[], Array<{ n: string }>] = await Promise.all([
      this.db.query(
        `SELECT r.id, r.created_at, r.reason, r.details, r.email, r.status, r.resolved_at,
                r.resolved_by, r.link_id, l.alias, l.url, l.user_id, d.domain, l.disabled_at,
                (SELECT count(*) FROM abuse_reports x WHERE x.link_id = r.link_id) AS reports,
                (SELECT count(*) FROM abuse_reports x
                  WHERE x.link_id = r.link_id AND x.status = 'open') AS open
           FROM abuse_reports r
           JOIN links l ON l.id = r.link_id
           LEFT JOIN domains d ON d.id = l.domain_id
          WHERE ($1::varchar IS NULL OR r.status = $1)
          ORDER BY r.id DESC LIMIT $2 OFFSET $3`,
        [status, limit, offset],
      ),
      this.db.query(
        'SELECT count(*) AS n FROM abuse_reports WHERE ($1::varchar IS NULL OR status = $1)',
        [status],
      ),
    ]);
    const items = rows.map((r) => this.view(r));
    return new Paginated('reports', items, Number(count[0].n), limit, page);
  }

  private view(r: ReportRow): ReportView {
    return {
      id: r.id,
      date: utc(r.created_at) as string,
      reason: r.reason,
      details: r.details,
      email: r.email,
      status: r.status,
      resolved: utc(r.resolved_at),
      resolvedBy: r.resolved_by,
      link: {
        id: r.link_id,
        alias: r.alias,
        shorturl: this.urls.short(r.alias, r.domain),
        url: r.url,
        owner: r.user_id,
        disabled: r.disabled_at !== null,
      },
      reports: Number(r.reports),
      open: Number(r.open),
    };
  }

  /**
   * Resolves report `id` and every other open report of its link with `action`; answers how many
   * reports were resolved. `disable` takes the link down first (Takedowns: its own audit entry).
   */
  async resolve(auth: Principal, id: number, action: ResolveAction): Promise<number> {
    const found: Array<{ link_id: number; status: string }> = await this.db.query(
      'SELECT link_id, status FROM abuse_reports WHERE id = $1',
      [id],
    );
    if (!found.length) throw new NotFoundError('Report');
    if (found[0].status !== 'open') throw new ConflictError(`Report ${id} is already resolved`);
    const linkId = found[0].link_id;
    if (action === 'disable') await this.takedowns.set(auth, linkId, true);
    const status = action === 'disable' ? 'disabled' : 'dismissed';
    return this.db.transaction(async (em) => {
      const rows: Array<{ id: number }> = await em.query(
        // a CTE makes the driver answer rows (an UPDATE alone answers [rows, count])
        `WITH changed AS (
           UPDATE abuse_reports SET status = $3, resolved_at = now(), resolved_by = $4
            WHERE (id = $1 OR link_id = $2) AND status = 'open'
            RETURNING id)
         SELECT id FROM changed ORDER BY id`,
        [id, linkId, status, auth.actor.id],
      );
      if (!rows.some((r) => r.id === id))
        throw new ConflictError(`Report ${id} is already resolved`);
      await this.audit.recordMany(
        em,
        auth,
        rows.map((r) => ({
          action: `report.${action}`,
          resource: { type: 'report', id: r.id },
          changes: ['status'],
        })),
      );
      return rows.length;
    });
  }
}
