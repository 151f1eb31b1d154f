import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { InvalidFieldError, NotFoundError, Principal } from '@app/common';
import { MAX_REACH_LINKS, ReachReader } from '@app/stats';

import { ReachQueryDto } from './dto/reach-query.dto';
import { ReachView } from './dto/reach.view';
import { StatsService } from './stats.service';

const SETS = ['links', 'campaign', 'channel'] as const;
const ID = /^[1-9]\d{0,9}$/;
const MAX_ID = 2_147_483_647;

/** A positive integer id of `field`, or a 400 naming it. */
function idOf(field: string, value: string): number {
  const trimmed = value.trim();
  if (!ID.test(trimmed) || Number(trimmed) > MAX_ID)
    throw new InvalidFieldError(field, `"${value.slice(0, 20)}" is not a positive integer id`);
  return Number(trimmed);
}

/**
 * `GET /api/stats/reach`: the caller's set of short codes (links, a campaign's, a channel's),
 * checked here (another user's ids are 404s, like everywhere), over a range checked by the same
 * parser as every statistics range; the counting is ReachReader's.
 */
@Injectable()
export class ReachService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly stats: StatsService,
    private readonly reader: ReachReader,
  ) {}

  async reach(auth: Principal, query: ReachQueryDto): Promise<{ data: ReachView }> {
    const sent = SETS.filter((f) => query[f] !== undefined);
    if (!sent.length)
      throw new InvalidFieldError(
        'links',
        'send one of links (ids separated by commas), campaign or channel',
      );
    if (sent.length > 1)
      throw new InvalidFieldError(
        sent[1],
        `send only one of links, campaign and channel (${sent.join(' and ')} were sent)`,
      );
    const range = this.stats.range(auth, { from: query.from, to: query.to });
    const field = sent[0];
    const value = query[field] as string;
    const ids =
      field === 'links'
        ? await this.links(auth, value)
        : field === 'campaign'
          ? await this.campaignLinks(auth, idOf('campaign', value))
          : await this.channelLinks(auth, idOf('channel', value));
    const reach = await this.reader.read(ids, range.from, range.to);
    return {
      data: {
        from: range.from,
        to: range.to,
        retention: range.retention,
        notice: range.notice,
        ...reach,
      },
    };
  }

  /** `links=1,2,3`: the caller's short links, in the order given (each once). */
  private async links(auth: Principal, value: string): Promise<number[]> {
    const parts = value.split(',');
    if (parts.length > MAX_REACH_LINKS)
      throw new InvalidFieldError('links', `at most ${MAX_REACH_LINKS} ids at once`);
    const ids = [...new Set(parts.map((p) => idOf('links', p)))];
    const rows: Array<{ id: number }> = await this.db.query(
      `SELECT id FROM links WHERE id = ANY($1::int[]) AND user_id = $2 AND kind = 'link'`,
      [ids, auth.user.id],
    );
    const mine = new Set(rows.map((r) => r.id));
    const missing = ids.find((id) => !mine.has(id));
    if (missing !== undefined) throw new NotFoundError(`Link ${missing}`);
    return ids;
  }

  /** A campaign of the caller: its short links, by id. */
  private async campaignLinks(auth: Principal, id: number): Promise<number[]> {
    const [campaign] = await this.db.query(
      `SELECT id FROM campaigns WHERE id = $1 AND user_id = $2`,
      [id, auth.user.id],
    );
    if (!campaign) throw new NotFoundError('Campaign');
    const rows: Array<{ id: number }> = await this.db.query(
      `SELECT id FROM links WHERE campaign_id = $1 AND user_id = $2 ORDER BY id LIMIT $3`,
      [id, auth.user.id, MAX_REACH_LINKS + 1],
    );
    return this.capped('campaign', rows);
  }

  /** A channel of the caller: its short links, bio pages and QR codes' links, by id. */
  private async channelLinks(auth: Principal, id: number): Promise<number[]> {
    const [channel] = await this.db.query(
      `SELECT id FROM channels WHERE id = $1 AND user_id = $2`,
      [id, auth.user.id],
    );
    if (!channel) throw new NotFoundError('Channel');
    const rows: Array<{ id: number }> = await this.db.query(
      `SELECT l.id FROM channel_items ci
         JOIN links l ON l.id = ci.item_id AND l.user_id = ci.user_id
          AND l.kind = (CASE WHEN ci.item_type = 'links' THEN 'link' ELSE 'bio' END)
        WHERE ci.channel_id = $1 AND ci.user_id = $2 AND ci.item_type IN ('links', 'bio')
       UNION
       SELECT q.link_id FROM channel_items ci
         JOIN qr_codes q ON q.id = ci.item_id AND q.user_id = ci.user_id
        WHERE ci.channel_id = $1 AND ci.user_id = $2 AND ci.item_type = 'qr'
       ORDER BY 1 LIMIT $3`,
      [id, auth.user.id, MAX_REACH_LINKS + 1],
    );
    return this.capped('channel', rows);
  }

  private capped(field: 'campaign' | 'channel', rows: Array<{ id: number }>): number[] {
    if (rows.length > MAX_REACH_LINKS)
      throw new InvalidFieldError(
        field,
        `has more than ${MAX_REACH_LINKS} short codes; reach covers at most ${MAX_REACH_LINKS} at once: ask for some with links=`,
      );
    return rows.map((r) => r.id);
  }
}
