import { Injectable, Logger } from '@nestjs/common';

import { RedisService } from '@app/redis';

/**
 * Takes one visit of a limited link: counts it unless the limit is reached. KEYS[1]: the link's
 * counter. ARGV[1]: the limit, ARGV[2]: 1 when the visit counts (a countable visit), 0 when it
 * only asks (bots, HEAD). Returns 1 when the visit may go through, 0 when the link is used up.
 */
const TAKE = `
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n >= tonumber(ARGV[1]) then return 0 end
if ARGV[2] == '1' then redis.call('INCR', KEYS[1]) end
return 1`;

type TakingRedis = { takeClick(key: string, limit: number, counts: number): Promise<number> };

/**
 * Click limits (`clicklimit`): the counted visits of a limited link, in Redis so that every api
 * replica shares one count, checked and counted in one atomic script: under any concurrency,
 * exactly `limit` counted visits go through. While Redis is unreachable the limit is not
 * enforced (the link keeps answering; logged).
 */
@Injectable()
export class ClickLimiter {
  private readonly logger = new Logger(ClickLimiter.name);
  private defined = false;

  constructor(private readonly redis: RedisService) {}

  /** Whether the visit may go through (and, when `counts`, counts it). */
  async take(linkId: number, limit: number, counts: boolean): Promise<boolean> {
    if (!this.redis.ready) {
      this.logger.warn(`Redis unavailable: click limit of link ${linkId} not enforced`);
      return true;
    }
    if (!this.defined) {
      this.redis.client.defineCommand('takeClick', { numberOfKeys: 1, lua: TAKE });
      this.defined = true;
    }
    try {
      const ok = await (this.redis.client as unknown as TakingRedis).takeClick(
        this.redis.key('clicklimit', linkId),
        limit,
        counts ? 1 : 0,
      );
      return ok === 1;
    } catch (err) {
      this.logger.warn(`click limit of link ${linkId} not enforced: ${(err as Error).message}`);
      return true;
    }
  }
}
