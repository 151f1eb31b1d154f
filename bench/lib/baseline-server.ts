/**
 * The baselines of bench:redirect, run by plain `node` (transpiled by `compiled()` in the harness:
 * no ts-node in the measured process, as none is in the api's): `raw302` answers a fixed 302;
 * `redis302` does one Redis GET of the link's cached JSON, then the 302; `mget302` the same with
 * the api's batching (BatchedGet: one MGET per turn of the event loop). Prints `listening <port>`.
 */
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';

import Redis, { Cluster } from 'ioredis';

import { BatchedGet } from '../../libs/redis/src/batched-get';
import type { RedisClient } from '../../libs/redis/src/redis-client';

const kind = process.argv[2];
const REDIRECT = 'private, max-age=90';

function serve(): ReturnType<typeof createServer> {
  if (kind === 'raw302') {
    const headers = [
      'Location',
      'https://example.com/landing/1',
      'Cache-Control',
      REDIRECT,
      'Content-Length',
      '0',
    ];
    return createServer((_req, res) => {
      res.writeHead(302, headers);
      res.end();
    });
  }
  // the api's Redis, in its mode (BENCH_REDIS=cluster: REDIS_CLUSTER_NODES)
  const nodes = (process.env.REDIS_CLUSTER_NODES ?? '').split(',').filter(Boolean);
  const redis: RedisClient = nodes.length
    ? new Cluster(
        nodes.map((n) => ({ host: n.split(':')[0], port: Number(n.split(':')[1]) })),
        { scaleReads: 'master' },
      )
    : new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const prefix = `${process.env.REDIS_PREFIX}:link:`;
  const batched = new BatchedGet(redis);
  const get = kind === 'mget302' ? (k: string) => batched.get(k) : (k: string) => redis.get(k);
  return createServer((req, res) => {
    get(prefix + (req.url ?? '/').slice(1)).then(
      (value) => {
        if (!value) {
          res.writeHead(404, ['Content-Length', '0']);
          return res.end();
        }
        const link = JSON.parse(value) as { url: string };
        res.writeHead(302, [
          'Location',
          link.url,
          'Cache-Control',
          REDIRECT,
          'Content-Length',
          '0',
        ]);
        res.end();
      },
      () => {
        res.writeHead(503, ['Content-Length', '0']);
        res.end();
      },
    );
  });
}

const server = serve();
server.keepAliveTimeout = 65_000;
process.on('SIGTERM', () => process.exit(0));
server.listen(0, '127.0.0.1', () =>
  console.log(`listening ${(server.address() as AddressInfo).port}`),
);
