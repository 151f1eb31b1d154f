import { readFileSync } from 'node:fs';
import { get as httpGet, IncomingMessage } from 'node:http';

import { Client } from 'pg';

import { randomString } from '@app/common';

import { AppProcess, startBuilt, waitHealthy } from './support/process';

/** Peak and current resident memory of a process, in MB (Linux /proc). */
function memory(pid: number): { peak: number; rss: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1]);
  return { peak: kb('VmHWM') / 1024, rss: kb('VmRSS') / 1024 };
}

/**
 * The links export through the built api process: memory does not grow with the number of rows,
 * and a client that goes away stops the query.
 */
describe('CSV export streaming (built api process)', () => {
  let api: AppProcess;
  let db: Client;
  let userId: number;
  const key = randomString(40);
  const email = `export${Date.now()}@example.com`;

  beforeAll(async () => {
    api = await startBuilt('api', {
      ADMIN_EMAIL: email,
      ADMIN_API_KEY: key,
      ADMIN_PASSWORD: 'export-pass1',
      LOG_LEVEL: 'warn',
    });
    await waitHealthy(api.url);
    db = new Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
    const { rows } = await db.query(`SELECT id FROM users WHERE email = $1`, [email]);
    userId = rows[0].id;
  }, 60_000);

  afterAll(async () => {
    await db?.end();
    if (api && api.child.exitCode === null) {
      api.child.kill('SIGTERM');
      await api.exited;
    }
  });

  const insertLinks = (n: number, tag: string) =>
    db.query(
      `INSERT INTO links (user_id, kind, alias, url, title)
       SELECT $1, 'link', $2 || g, 'https://example.com/page/' || g, 'Title number ' || g
         FROM generate_series(1, $3) g`,
      [userId, `${tag}${Date.now().toString(36)}`, n],
    );

  /**
   * Downloads the export, counting lines and bytes without keeping them, and sampling the api's
   * resident memory at the start, every 10 ms and at the end (`rss`: the highest sample, MB).
   */
  function download(): Promise<{
    status: number;
    lines: number;
    bytes: number;
    ms: number;
    rss: number;
  }> {
    const started = Date.now();
    // sampled at the start and the end too: a small export can finish between two ticks
    const sample = () => (rss = Math.max(rss, memory(api.child.pid as number).rss));
    let rss = 0;
    sample();
    const sampler = setInterval(sample, 10);
    return new Promise<{ status: number; lines: number; bytes: number; ms: number }>(
      (resolve, reject) => {
        httpGet(
          `${api.url}/api/urls/export`,
          { headers: { Authorization: `Bearer ${key}` } },
          (res) => {
            let lines = 0;
            let bytes = 0;
            res.on('data', (chunk: Buffer) => {
              bytes += chunk.length;
              for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) lines++;
            });
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, lines, bytes, ms: Date.now() - started }),
            );
            res.on('error', reject);
          },
        ).on('error', reject);
      },
    ).then(
      (result) => {
        clearInterval(sampler);
        sample();
        return { ...result, rss };
      },
      (err) => {
        clearInterval(sampler);
        throw err;
      },
    );
  }

  const busyExports = async () =>
    Number(
      (
        await db.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE query LIKE '/* export:links */%' AND state <> 'idle' AND pid <> pg_backend_pid()`,
        )
      ).rows[0].n,
    );

  it('100 000 links stream out with the api’s memory flat (no growth with the number of rows)', async () => {
    await insertLinks(10_000, 'w');
    await download(); // warm-up: code paths compiled, pool connected
    const idle = memory(api.child.pid as number).rss;
    const small = await download();
    expect(small).toMatchObject({ status: 200, lines: 10_001 });
    await insertLinks(90_000, 'm');
    const big = await download();
    expect(big).toMatchObject({ status: 200, lines: 100_001 });
    const growth = big.rss - small.rss;
    console.log(
      `export of 100 000 links: ${(big.bytes / 1e6).toFixed(1)} MB in ${big.ms} ms ` +
        `(${Math.round(100_000 / (big.ms / 1000))} rows/s); api RSS ${idle.toFixed(0)} MB idle, ` +
        `at most ${small.rss.toFixed(0)} MB during the 10 000-row export and ` +
        `${big.rss.toFixed(0)} MB during the 100 000-row one (+${growth.toFixed(1)} MB)`,
    );
    // holding the rows (or the 13 MB of CSV text) would add several times this
    expect(growth).toBeLessThan(25);
    expect(big.rss - idle).toBeLessThan(50);
  }, 120_000);

  it('a client that disconnects stops the query and frees its connection', async () => {
    // 300 000 rows (~40 MB of CSV): far more than the socket buffers between the api and a
    // paused client hold (~10 MB on loopback). With the 13 MB of 100 000 rows, a fast machine
    // buffered nearly all of it and the query could end before the client stopped reading.
    await insertLinks(200_000, 'd');
    for (let round = 0; round < 3; round++) {
      const res = await new Promise<IncomingMessage>((resolve, reject) => {
        httpGet(
          `${api.url}/api/urls/export`,
          { headers: { Authorization: `Bearer ${key}` } },
          resolve,
        ).on('error', reject);
      });
      expect(res.statusCode).toBe(200);
      // read one chunk, then stop reading: backpressure holds the cursor open
      await new Promise((resolve) => res.once('data', resolve));
      res.pause();
      await new Promise((r) => setTimeout(r, 300));
      expect(await busyExports()).toBe(1);
      res.destroy();
      const until = Date.now() + 5000;
      while ((await busyExports()) > 0 && Date.now() < until)
        await new Promise((r) => setTimeout(r, 50));
      expect(await busyExports()).toBe(0);
    }
    // the pool still serves exports and API calls
    const again = await download();
    expect(again).toMatchObject({ status: 200, lines: 300_001 });
    const health = await fetch(`${api.url}/health/ready`);
    expect(health.status).toBe(200);
  }, 120_000);
});
