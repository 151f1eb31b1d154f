import { RedisService } from '@app/redis';

/**
 * Redis names of the live visit stream (all under the deployment prefix):
 *   live:{u<user>}          pub/sub channel of a workspace owner's visits (not a key). The hash
 *                           tag names the user, so the channel is ready for sharded pub/sub
 *                           (SPUBLISH goes to the shard owning the tag's slot); today it is a
 *                           classic channel, which a PUBLISH on any node reaches on a cluster.
 *   live:users              sorted set of the users some stream listens to, scored by when the
 *                           listening lapses (epoch ms): streams refresh it every second, every
 *                           api process reads it every second to learn whose visits to publish.
 *   live:streams:<credential digest>
 *                           sorted set of the open streams of one API key or session (stream id,
 *                           scored by when it lapses): the per-key cap over every replica; a
 *                           crashed replica's entries lapse on their own.
 */
export class LiveKeys {
  constructor(private readonly redis: Pick<RedisService, 'key'>) {}

  channel(userId: number): string {
    return this.redis.key('live', `{u${userId}}`);
  }

  /** The user id a channel names, or NaN. */
  userOf(channel: string): number {
    const m = /:\{u(\d+)\}$/.exec(channel);
    return m ? Number(m[1]) : NaN;
  }

  get listeners(): string {
    return this.redis.key('live', 'users');
  }

  streams(credential: string): string {
    return this.redis.key('live', 'streams', credential);
  }
}

/** The cache bus member that tells every api process at once that a user has a new listener. */
export const LIVE_BUS_MEMBER = 'live';

/** A stream marks its user as listened to for this long; it refreshes the mark every second. */
export const LISTEN_TTL_MS = 10_000;

/**
 * One visit as the live stream carries it: no address, no digest. Extensible: new fields are
 * added to the object (clients ignore what they do not know).
 */
export interface LiveVisit {
  /** when the visit was recorded, `YYYY-MM-DD HH:MM:SS` (UTC) */
  date: string;
  /** the short code's id (links.id: a short link, a bio page, a QR code's link) */
  link: number;
  country: string;
  /** the visitor's city when the statistics know cities, else null */
  city: string | null;
  referrer: string;
  browser: string;
  os: string;
  device: string;
}

/** A message on a user's channel: the owner and a batch of visits. */
export interface LiveMessage {
  u: number;
  e: LiveVisit[];
}
