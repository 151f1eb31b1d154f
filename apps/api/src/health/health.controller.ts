import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { Public, ServiceUnavailableError } from '@app/common';
import { ReadReplicas } from '@app/database';
import { ThreatFeeds } from '@app/links';
import { isCluster, primaries, RedisClient, RedisService } from '@app/redis';

const withTimeout = <T>(p: Promise<T>, ms: number) =>
  Promise.race([
    p,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms)),
  ]);

/**
 * Every primary answers (there is at least one) and, on a cluster, every primary sees the
 * cluster serving all its slots (a primary that failed may already be gone from the client's
 * list). Asking one node of a cluster let readiness flap while a primary came back: the node
 * asked said ok, the next one asked had not heard yet.
 */
async function pingAll(client: RedisClient): Promise<void> {
  const nodes = primaries(client);
  if (!nodes.length) throw new Error('no redis node known');
  if (!isCluster(client)) {
    await Promise.all(nodes.map((node) => node.ping()));
    return;
  }
  const views = await Promise.all(nodes.map((node) => node.cluster('INFO')));
  if (!views.every((info) => String(info).includes('cluster_state:ok')))
    throw new Error('cluster down');
}

@ApiTags('health')
@Public()
@Controller('health')
export class HealthController {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly redis: RedisService,
    private readonly replicas: ReadReplicas,
    private readonly feeds: ThreatFeeds,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Liveness: 200 while the process is up' })
  @ApiResponse({
    status: 200,
    description: 'The process is up',
    schema: {
      type: 'object',
      properties: {
        error: { type: 'integer', enum: [0] },
        message: { type: 'string', enum: ['ok'] },
      },
      required: ['error', 'message'],
      additionalProperties: false,
    },
  })
  live() {
    return { message: 'ok' };
  }

  @Get('ready')
  @ApiOperation({
    summary: 'Readiness: 200 only when Postgres and Redis answer, else 503',
    description:
      'Read replicas (DATABASE_REPLICA_URLS) are reported in `data.replicas`, each with its state and lag; a replica that is down or lagging never fails readiness (reads skip it).',
  })
  @ApiResponse({
    status: 200,
    description: 'Postgres and Redis answer',
    schema: {
      type: 'object',
      properties: {
        error: { type: 'integer', enum: [0] },
        message: { type: 'string', enum: ['ready'] },
        data: {
          type: 'object',
          properties: {
            postgres: { type: 'string', enum: ['up'] },
            redis: { type: 'string', enum: ['up'] },
            replicas: {
              type: 'array',
              description:
                'One entry per read replica, in DATABASE_REPLICA_URLS order (empty without replicas)',
              items: {
                type: 'object',
                properties: {
                  name: { type: 'string', description: 'host:port/database' },
                  status: {
                    type: 'string',
                    enum: ['up', 'lagging', 'down'],
                    description:
                      'up: serving reads; lagging: behind more than REPLICA_MAX_LAG_SECONDS, skipped; down: unreachable, skipped',
                  },
                  lag: {
                    type: 'number',
                    format: 'double',
                    nullable: true,
                    description: 'Seconds behind the primary at the last check (null: unknown)',
                  },
                },
                required: ['name', 'status', 'lag'],
                additionalProperties: false,
              },
            },
            feeds: {
              type: 'array',
              description:
                'One entry per threat feed (THREAT_FEEDS), in order (empty without feeds); a feed never fails readiness',
              items: {
                type: 'object',
                properties: {
                  name: { type: 'string' },
                  entries: { type: 'integer', description: 'Entries of the set in use' },
                  age: {
                    type: 'integer',
                    nullable: true,
                    description: 'Seconds since the set in use was loaded (null: never loaded)',
                  },
                  error: {
                    type: 'boolean',
                    description: 'The last load failed (the previous set stays in use)',
                  },
                },
                required: ['name', 'entries', 'age', 'error'],
                additionalProperties: false,
              },
            },
          },
          required: ['postgres', 'redis', 'replicas', 'feeds'],
          additionalProperties: false,
        },
      },
      required: ['error', 'message', 'data'],
      additionalProperties: false,
    },
  })
  @ApiResponse({
    status: 503,
    description: 'Postgres or Redis does not answer (the message says which)',
  })
  async ready() {
    const [pg, redis, replicas] = await Promise.all([
      withTimeout(this.db.query('SELECT 1'), 2000).then(
        () => true,
        () => false,
      ),
      // every primary of a cluster: each holds part of the keys (none known yet: not ready)
      withTimeout(pingAll(this.redis.client), 2000).then(
        () => true,
        () => false,
      ),
      this.replicas.status(),
    ]);
    if (!pg || !redis) {
      throw new ServiceUnavailableError(
        `Not ready: postgres ${pg ? 'up' : 'down'}, redis ${redis ? 'up' : 'down'}`,
      );
    }
    const now = Date.now();
    const feeds = (await withTimeout(this.feeds.states(), 2000).catch(() => [])).map((f) => ({
      name: f.name,
      entries: f.entries,
      age: f.loadedAt ? Math.max(0, Math.round((now - Date.parse(f.loadedAt)) / 1000)) : null,
      error: f.error !== null,
    }));
    return { message: 'ready', data: { postgres: 'up', redis: 'up', replicas, feeds } };
  }
}
