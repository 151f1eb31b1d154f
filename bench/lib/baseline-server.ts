/**
 * The baselines of bench:redirect, run by plain `node` (transpiled by `compiled()` in the harness:
 * no ts-node in the measured process, as none is in the api's): `raw302` answers a fixed 302;
 * `redis302` does one Redis GET of the link's cached JSON, then the 302; `mget302` the same with
 * the api's batching (BatchedGet: one MGET per turn of the event loop). The baseline of
 * bench:create, `insert`: reads the JSON body of a `POST /api/url/add`, does one
 * `INSERT INTO links (…) VALUES (…) RETURNING id` through a `pg` Pool of DB_POOL_SIZE (the api's
 * size) for the user BASELINE_USER with a random 7-character alias, and answers the api's
 * `{error, id, shorturl}`. Prints `listening <port>`.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';

import Redis, { Cluster } from 'ioredis';
import { Pool } from 'pg';

import { BatchedGet } from '../../libs/redis/src/batched-get';
import { cacheBucket } from '../../libs/redis/src/key-slot';
import type { RedisClient } from '../../libs/redis/src/redis-client';

const kind = process.argv[2];
const REDIRECT = 'private, max-age=90';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** A random alias: 7 characters of the api's alphabet. */
function alias(): string {
  const bytes = randomBytes(7);
  let out = '';
  for (const b of bytes) out += ALPHABET[b % ALPHABET.length];
  return out;
}

/** The bare creation: JSON body in, one INSERT … RETURNING id, JSON out. */
function insertServer(): ReturnType<typeof createServer> {
  const pool = new Pool({
    connectionString: process.env.DATABASE_URL,
    max: Number(process.env.DB_POOL_SIZE ?? 10),
  });
  const user = Number(process.env.BASELINE_USER);
  const publicUrl = process.env.PUBLIC_URL ?? 'http://localhost';
  const fail = (res: import('node:http').ServerResponse, status: number, message: string) => {
    const body = JSON.stringify({ error: 1, message });
    res.writeHead(status, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(body),
    });
    res.end(body);
  };
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let url: unknown;
      try {
        url = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { url?: unknown }).url;
      } catch {
        return fail(res, 400, 'invalid JSON');
      }
      if (typeof url !== 'string') return fail(res, 400, 'url: required');
      const code = alias();
      pool
        .query<{ id: number }>(
          `INSERT INTO links (user_id, kind, alias, url) VALUES ($1, 'link', $2, $3) RETURNING id`,
          [user, code, url],
        )
        .then(
          ({ rows }) => {
            const body = JSON.stringify({
              error: 0,
              id: rows[0].id,
              shorturl: `${publicUrl}/${code}`,
            });
            res.writeHead(200, {
              'Content-Type': 'application/json; charset=utf-8',
              'Content-Length': Buffer.byteLength(body),
            });
            res.end(body);
          },
          (err: Error) => fail(res, 503, err.message),
        );
    });
  });
}

function serve(): ReturnType<typeof createServer> {
  if (kind === 'insert') return insertServer();
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
  // the key the api's link cache keeps an alias under (SharedCache: one hash tag per bucket on a cluster)
  const prefix = process.env.REDIS_PREFIX as string;
  const key = nodes.length
    ? (alias: string) => `${prefix}:{link:${cacheBucket(alias)}}:${alias}`
    : (alias: string) => `${prefix}:link:${alias}`;
  const batched = new BatchedGet(redis);
  const get = kind === 'mget302' ? (k: string) => batched.get(k) : (k: string) => redis.get(k);
  return createServer((req, res) => {
    get(key((req.url ?? '/').slice(1))).then(
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
