import { randomBytes } from 'node:crypto';

import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { RedisService } from '@app/redis';

/** How long a built rotation stays in Redis without a change of its campaign. */
export const ROTATION_TTL_MS = 24 * 3600 * 1000;
/** Expired members a hit removes at most; past it the rotation is built again instead. */
export const ROTATION_EXPIRED_BATCH = 256;
/** Links read from Postgres (and written to Redis) per step of a build. */
const BUILD_CHUNK = 5000;
/**
 * Builds one process runs at once (each holds a pooled connection while it reads); a hit that
 * needs another one meanwhile is answered by the fallback (an index range), not queued.
 */
const MAX_BUILDS = 2;
/** Campaigns whose position the Redis-less fallback remembers, per process. */
const FALLBACK_CURSORS = 10_000;

/**
 * One hit: KEYS turn counter, members (score: link id), expiring members (score: expiry in ms),
 * built marker (the member count when built). ARGV: now in ms, ROTATION_EXPIRED_BATCH.
 * Removes the members expired by now (at most a batch; more than that drops the rotation, built
 * again by the caller), then takes the next turn and answers the (turn mod count)-th member by
 * link id: O(log n). Answers nil when the rotation is not built (or must be built again), '' when
 * the campaign has no live link (no turn is taken).
 */
const PICK = `
local built = redis.call('GET', KEYS[4])
if not built then return false end
local gone = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
if #gone > 0 then
  redis.call('ZREM', KEYS[2], unpack(gone))
  redis.call('ZREM', KEYS[3], unpack(gone))
  if #gone >= tonumber(ARGV[2]) then
    redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
    return false
  end
end
local n = redis.call('ZCARD', KEYS[2])
if n == 0 then
  if tonumber(built) > 0 then
    redis.call('DEL', KEYS[4])
    return false
  end
  return ''
end
local i = (redis.call('INCR', KEYS[1]) - 1) % n
return redis.call('ZRANGE', KEYS[2], i, i)[1]`;

/**
 * Installs a build: KEYS the build's members and expiring members, the rotation's members,
 * expiring members and marker; ARGV the member count, ROTATION_TTL_MS. Atomic, so a hit sees a
 * whole rotation or none, whatever other builds run beside it.
 */
const INSTALL = `
for i = 1, 2 do
  if redis.call('EXISTS', KEYS[i]) == 1 then
    redis.call('RENAME', KEYS[i], KEYS[i + 2])
    redis.call('PEXPIRE', KEYS[i + 2], ARGV[2])
  else
    redis.call('DEL', KEYS[i + 2])
  end
end
redis.call('SET', KEYS[5], ARGV[1], 'PX', ARGV[2])
return 1`;

type RotationRedis = {
  rotationPick(
    turn: string,
    members: string,
    expiring: string,
    built: string,
    now: number,
    batch: number,
  ): Promise<string | null>;
  rotationInstall(
    buildMembers: string,
    buildExpiring: string,
    members: string,
    expiring: string,
    built: string,
    count: number,
    ttl: number,
  ): Promise<number>;
};

/** The link a rotator hit forwards to. */
export interface RotationPick {
  alias: string;
  domain: string | null;
}

interface MemberRow {
  id: number;
  alias: string;
  domain: string | null;
  expires: string | null;
}

/**
 * The campaign rotator's members and turn (`GET /r/<slug>`): the campaign's live links (kind
 * `link`, not expired) in link id order, forwarded to in turn, shared by every api replica.
 *
 * A hit costs the same for 3 links as for 100 000: the members of the campaign's current version
 * (`campaign_rotations`, moved by triggers whenever a member joins, leaves or changes: migration
 * CampaignRotation) are a Redis sorted set by link id, and one script takes the turn (the
 * campaign's counter, as before) and answers the (turn mod count)-th member. Links that expire
 * are removed by the hit that finds them expired (a second sorted set by expiry). A version is
 * read from Postgres once (in steps of BUILD_CHUNK links, keyset, in one snapshot) by the first
 * hit that finds it missing, one build at a time per campaign and MAX_BUILDS per process (a hit
 * finding them all busy takes the fallback below), installed atomically; nothing but a change of
 * the campaign's links, expiry in bulk or ROTATION_TTL_MS starts a new one.
 *
 * Without Redis the process rotates on its own: it remembers the last link id it forwarded to per
 * campaign and takes the next live one from `links_campaign_idx` (an index range, not the
 * campaign's links).
 */
@Injectable()
export class CampaignRotation {
  private readonly logger = new Logger(CampaignRotation.name);
  private defined = false;
  private readonly builds = new Map<number, Promise<string>>();
  private readonly cursors = new Map<number, number>();

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly redis: RedisService,
  ) {}

  /** The next link of campaign `id` whose rotation is at `version`; null when it has none. */
  async next(id: number, version: string): Promise<RotationPick | null> {
    if (this.redis.ready) {
      try {
        let picked = await this.pick(id, version);
        if (picked === null && (this.builds.has(id) || this.builds.size < MAX_BUILDS))
          picked = await this.pick(id, await this.build(id));
        if (picked !== null) return picked ? parseMember(picked) : null;
      } catch (err) {
        this.logger.warn(`rotation of campaign ${id} without Redis: ${(err as Error).message}`);
      }
    }
    return this.fallback(id);
  }

  private keys(id: number, version: string) {
    const tag = ['rotator', id];
    return {
      turn: this.redis.slotKey(tag, 'turn'),
      members: this.redis.slotKey(tag, version, 'members'),
      expiring: this.redis.slotKey(tag, version, 'expiring'),
      built: this.redis.slotKey(tag, version, 'built'),
    };
  }

  private commands(): RotationRedis {
    if (!this.defined) {
      this.redis.client.defineCommand('rotationPick', { numberOfKeys: 4, lua: PICK });
      this.redis.client.defineCommand('rotationInstall', { numberOfKeys: 5, lua: INSTALL });
      this.defined = true;
    }
    return this.redis.client as unknown as RotationRedis;
  }

  private pick(id: number, version: string): Promise<string | null> {
    const k = this.keys(id, version);
    return this.commands().rotationPick(
      k.turn,
      k.members,
      k.expiring,
      k.built,
      Date.now(),
      ROTATION_EXPIRED_BATCH,
    );
  }

  /** Builds the campaign's current rotation (one build at a time per process); its version. */
  private build(id: number): Promise<string> {
    const running = this.builds.get(id);
    if (running) return running;
    const work = this.load(id).finally(() => this.builds.delete(id));
    this.builds.set(id, work);
    return work;
  }

  /**
   * Reads the version and its live links in one snapshot (keyset steps of BUILD_CHUNK ids), writes
   * them to keys of this build alone, then installs them as the version's rotation.
   */
  private load(id: number): Promise<string> {
    return this.db.transaction('REPEATABLE READ', async (em) => {
      const [row]: Array<{ version: string }> = await em.query(
        'SELECT version::text AS version FROM campaign_rotations WHERE campaign_id = $1',
        [id],
      );
      const version = row?.version ?? '0';
      const k = this.keys(id, version);
      const tag = ['rotator', id];
      const build = randomBytes(6).toString('hex');
      const buildMembers = this.redis.slotKey(tag, version, build, 'members');
      const buildExpiring = this.redis.slotKey(tag, version, build, 'expiring');
      let count = 0;
      for (let after = 0; ;) {
        const rows: MemberRow[] = await em.query(
          `SELECT l.id, l.alias, d.domain,
                  (extract(epoch FROM l.expires_at) * 1000)::bigint::text AS expires
             FROM links l LEFT JOIN domains d ON d.id = l.domain_id
            WHERE l.campaign_id = $1 AND l.id > $2 AND l.kind = 'link'
              AND (l.expires_at IS NULL OR l.expires_at > now())
            ORDER BY l.id LIMIT ${BUILD_CHUNK}`,
          [id, after],
        );
        if (!rows.length) break;
        const members: Array<string | number> = [];
        const expiring: Array<string | number> = [];
        for (const r of rows) {
          const member = `${r.id}\t${r.alias}\t${r.domain ?? ''}`;
          members.push(r.id, member);
          if (r.expires !== null) expiring.push(r.expires, member);
        }
        const step = this.redis.client.pipeline();
        step.zadd(buildMembers, ...members).pexpire(buildMembers, 60_000);
        if (expiring.length) step.zadd(buildExpiring, ...expiring).pexpire(buildExpiring, 60_000);
        const results = await step.exec();
        const failed = results?.find(([err]) => err);
        if (failed) throw failed[0] as Error;
        count += rows.length;
        after = rows[rows.length - 1].id;
        if (rows.length < BUILD_CHUNK) break;
      }
      await this.commands().rotationInstall(
        buildMembers,
        buildExpiring,
        k.members,
        k.expiring,
        k.built,
        count,
        ROTATION_TTL_MS,
      );
      return version;
    });
  }

  /** Without Redis: the live link after the last one this process forwarded to, by id, wrapping. */
  private async fallback(id: number): Promise<RotationPick | null> {
    const after = this.cursors.get(id) ?? 0;
    const next = (from: number): Promise<Array<RotationPick & { id: number }>> =>
      this.db.query(
        `SELECT l.id, l.alias, d.domain
           FROM links l LEFT JOIN domains d ON d.id = l.domain_id
          WHERE l.campaign_id = $1 AND l.id > $2 AND l.kind = 'link'
            AND (l.expires_at IS NULL OR l.expires_at > now())
          ORDER BY l.id LIMIT 1`,
        [id, from],
      );
    let [row] = await next(after);
    if (!row && after > 0) [row] = await next(0);
    if (!row) return null;
    if (this.cursors.size >= FALLBACK_CURSORS && !this.cursors.has(id)) this.cursors.clear();
    this.cursors.set(id, row.id);
    return { alias: row.alias, domain: row.domain };
  }
}

function parseMember(member: string): RotationPick {
  const [, alias, domain] = member.split('\t');
  return { alias, domain: domain || null };
}
