import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { Public, ServiceUnavailableError } from '@app/common';
import { isCluster, primaries, RedisClient, RedisService } from '@app/redis';

const withTimeout = <T>(p: Promise<T>, ms: number) =>
  Promise.race([
    p,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms)),
  ]);

/**
 * Every primary answers PING (there is at least one) and, on a cluster, the cluster serves all
 * its slots (a primary that failed may already be gone from the client's list).
 */
async function pingAll(client: RedisClient): Promise<void> {
  const nodes = primaries(client);
  if (!nodes.length) throw new Error('no redis node known');
  await Promise.all(nodes.map((node) => node.ping()));
  if (isCluster(client) && !String(await client.cluster('INFO')).includes('cluster_state:ok'))
    throw new Error('cluster down');
}

@ApiTags('health')
@Public()
@Controller('health')
export class HealthController {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly redis: RedisService,
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
  @ApiOperation({ summary: 'Readiness: 200 only when Postgres and Redis answer, else 503' })
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
          },
          required: ['postgres', 'redis'],
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
    const [pg, redis] = await Promise.all([
      withTimeout(this.db.query('SELECT 1'), 2000).then(
        () => true,
        () => false,
      ),
      // every primary of a cluster: each holds part of the keys (none known yet: not ready)
      withTimeout(pingAll(this.redis.client), 2000).then(
        () => true,
        () => false,
      ),
    ]);
    if (!pg || !redis) {
      throw new ServiceUnavailableError(
        `Not ready: postgres ${pg ? 'up' : 'down'}, redis ${redis ? 'up' : 'down'}`,
      );
    }
    return { message: 'ready', data: { postgres: 'up', redis: 'up' } };
  }
}
