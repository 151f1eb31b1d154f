import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';

import { getQueueToken } from '@nestjs/bullmq';
import { INestApplicationContext } from '@nestjs/common';
import { Queue } from 'bullmq';
import sharp from 'sharp';
import request from 'supertest';

import { JOB, QUEUE } from '@app/queue';

import { QrRenderSweep } from '../apps/worker/src/qr/qr-render-sweep';
import { createTestApp, createTestWorker, createUser, TestApp, TestUser } from './support/app';
import { decodeQr as decode } from './support/qr';
import { eventually } from './support/stats';

const STORAGE = () => process.env.STORAGE_DIR as string;
const LINK = /^http:\/\/short\.test\/q\/([A-Za-z0-9]{8})$/;

/** The api (its real server serves `/q/`) and a worker in-process. */
async function boot(env: Record<string, string> = {}) {
  const t = await createTestApp(env);
  const worker = await createTestWorker(env);
  return { t, worker, server: t.server };
}

function helpers(get: () => { t: TestApp; server: Server; user: TestUser }) {
  const create = async (body: Record<string, unknown>) => {
    const { t, user } = get();
    const res = await t.http().post('/api/qr/add').set(user.auth).send(body);
    expect(res.status).toBe(200);
    return {
      id: res.body.id as number,
      link: res.body.link as string,
      code: (LINK.exec(res.body.link) as RegExpExecArray)[1],
    };
  };
  const details = async (id: number) => {
    const { t, user } = get();
    return (await t.http().get(`/api/qr/${id}`).set(user.auth)).body.details;
  };
  const settled = async (id: number, status: 'ready' | 'failed' = 'ready') => {
    await eventually(async () => ['ready', 'failed'].includes((await details(id)).status), 20_000);
    const d = await details(id);
    expect([d.status, d.reason]).toEqual([status, status === 'ready' ? null : expect.any(String)]);
    return d;
  };
  const image = async (code: string, format: 'png' | 'svg' = 'png') => {
    const res = await request(get().server)
      .get(`/q/${code}.${format}`)
      .buffer(true)
      .parse((r, cb) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => cb(null, Buffer.concat(chunks)));
      });
    return res;
  };
  return { create, details, settled, image };
}

describe('QR worker: rendering, logos, re-rendering, deletion', () => {
  describe('default settings (public logo URLs only)', () => {
    let t: TestApp;
    let worker: INestApplicationContext;
    let server: Server;
    let user: TestUser;
    const { create, settled, image, details } = helpers(() => ({ t, server, user }));

    beforeAll(async () => {
      ({ t, worker, server } = await boot());
      await mkdir(join(STORAGE(), 'assets'), { recursive: true });
      const red = await sharp({
        create: {
          width: 200,
          height: 200,
          channels: 4,
          background: { r: 255, g: 0, b: 0, alpha: 1 },
        },
      })
        .png()
        .toBuffer();
      await writeFile(join(STORAGE(), 'assets', 'brand.png'), red);
    });
    beforeEach(async () => {
      user = await createUser(t);
    });
    afterAll(async () => {
      await worker.close();
      await t.close();
    });

    it('renders the PNG and the SVG, which decode back to the short link; no temporary file stays', async () => {
      const { id, link, code } = await create({ type: 'link', data: 'https://example.com/' });
      await settled(id);

      const png = await image(code);
      expect(png.status).toBe(200);
      expect(png.headers['content-type']).toBe('image/png');
      const meta = await sharp(png.body).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['png', 512, 512]);
      expect((await decode(png.body)).text).toBe(link);

      const svg = await image(code, 'svg');
      expect(svg.status).toBe(200);
      expect(svg.headers['content-type']).toBe('image/svg+xml');
      expect((await decode(await sharp(svg.body).png().toBuffer())).text).toBe(link);

      expect(existsSync(join(STORAGE(), 'qr', `${code}.png`))).toBe(true);
      // render jobs queued by earlier suites of this run may still be in flight: once the queue
      // is idle, no render may have left a temporary file
      const queue = t.app.get<Queue>(getQueueToken(QUEUE.qr));
      await eventually(async () => {
        const counts = await queue.getJobCounts('active', 'waiting', 'delayed', 'prioritized');
        return Object.values(counts).every((n) => n === 0);
      }, 30_000);
      // (a worker SIGKILLed by an earlier suite may have left its own; they are swept later)
      expect(
        (await readdir(join(STORAGE(), 'qr'))).filter(
          (f) => f.endsWith('.tmp') && f.startsWith(`.${code}.`),
        ),
      ).toEqual([]);
    });

    it('paints the background and foreground colours', async () => {
      const { id, link, code } = await create({
        type: 'text',
        data: 'x',
        background: 'rgb(255,250,205)',
        foreground: 'rgb(120,0,40)',
      });
      await settled(id);
      const img = await decode((await image(code)).body);
      expect(img.text).toBe(link);
      expect(img.pixel(3, 3)).toEqual([255, 250, 205]);
      expect(img.pixel(Math.round((512 / 33) * 2.5), Math.round((512 / 33) * 2.5))).toEqual([
        120, 0, 40,
      ]);
    });

    it('composites a logo from the assets folder; the image still decodes', async () => {
      const { id, link, code } = await create({ type: 'text', data: 'x', logo: 'brand.png' });
      await settled(id);
      const img = await decode((await image(code)).body);
      expect(img.text).toBe(link);
      expect(img.pixel(256, 256)).toEqual([255, 0, 0]);
      expect(img.pixel(256 - 57, 256)).toEqual([255, 255, 255]); // the padded square around the logo
      expect((await image(code, 'svg')).body.toString()).toContain('href="data:image/png;base64,');
    });

    it('refuses a logo URL whose host resolves to a loopback address: failed, with the reason, no image', async () => {
      const { id, code } = await create({
        type: 'text',
        data: 'x',
        logo: 'http://localhost:9/logo.png',
      });
      const d = await settled(id, 'failed');
      expect(d.reason).toBe(
        'logo: localhost resolves to a private, loopback or link-local address',
      );
      const [row] = await t.db.query(`SELECT status, error FROM qr_codes WHERE id = $1`, [id]);
      expect(row).toEqual({ status: 'failed', error: d.reason });
      expect((await image(code)).status).toBe(404);
    });

    it('a new look re-renders (new ETag, new colour); a content update keeps the image', async () => {
      const { id, link, code } = await create({ type: 'link', data: 'https://example.com/a' });
      await settled(id);
      const first = await image(code);

      await t
        .http()
        .put(`/api/qr/${id}/update`)
        .set(user.auth)
        .send({ data: 'https://example.com/b' })
        .expect(200);
      expect((await details(id)).status).toBe('ready');
      expect((await image(code)).headers.etag).toBe(first.headers.etag);

      await t
        .http()
        .put(`/api/qr/${id}/update`)
        .set(user.auth)
        .send({ data: 'https://example.com/b', foreground: 'rgb(0,0,160)' })
        .expect(200);
      await settled(id);
      const second = await image(code);
      expect(second.headers.etag).not.toBe(first.headers.etag);
      const img = await decode(second.body);
      expect(img.text).toBe(link);
      expect(img.pixel(Math.round((512 / 33) * 2.5), Math.round((512 / 33) * 2.5))).toEqual([
        0, 0, 160,
      ]);
      const [row] = await t.db.query(`SELECT render_version FROM qr_codes WHERE id = $1`, [id]);
      expect(row.render_version).toBe(2);
    });

    it("after quick successive updates the image is the last version's", async () => {
      const { id, code } = await create({ type: 'text', data: 'x' });
      for (const blue of [50, 100, 150]) {
        await t
          .http()
          .put(`/api/qr/${id}/update`)
          .set(user.auth)
          .send({ data: 'x', foreground: `rgb(0,0,${blue})` })
          .expect(200);
      }
      await settled(id);
      const [row] = await t.db.query(`SELECT render_version, status FROM qr_codes WHERE id = $1`, [
        id,
      ]);
      expect(row).toEqual({ render_version: 4, status: 'ready' });
      // jobs of versions 1-3 that run late are dropped: wait for the queue to drain, then look again
      await eventually(() => queueIdle(t));
      const img = await decode((await image(code)).body);
      expect(img.pixel(Math.round((512 / 33) * 2.5), Math.round((512 / 33) * 2.5))).toEqual([
        0, 0, 150,
      ]);
    });

    it('a job of an older version that runs late changes neither the image nor the row', async () => {
      const { id, code } = await create({ type: 'text', data: 'x', foreground: 'rgb(0,0,90)' });
      await settled(id);
      const before = await image(code);
      // the row goes back to pending meanwhile: only its own version may mark it ready
      await t.db.query(`UPDATE qr_codes SET render_version = 2, status = 'pending' WHERE id = $1`, [
        id,
      ]);
      const queue = t.app.get<Queue>(getQueueToken(QUEUE.qr));
      const late = await queue.add(JOB.renderQr, {
        qrId: id,
        version: 1,
        look: { code, background: 'rgb(255,255,255)', foreground: 'rgb(200,0,0)', logo: null },
      });
      await eventually(
        async () => (await queue.getJob(late.id as string))?.finishedOn !== undefined,
      );
      expect((await queue.getJob(late.id as string))?.returnvalue).toBe('stale');
      const [row] = await t.db.query(`SELECT status FROM qr_codes WHERE id = $1`, [id]);
      expect(row.status).toBe('pending');
      const after = await image(code);
      expect(after.headers.etag).toBe(before.headers.etag);
      expect(Buffer.compare(after.body, before.body)).toBe(0);
      expect(
        (await readdir(join(STORAGE(), 'qr'))).filter((f) => f.startsWith(`.${code}.`)),
      ).toEqual([]); // the staged files are gone too
    });

    it('the sweep queues the render of a code whose job was lost, once', async () => {
      const code = `Sw${Date.now().toString(36)}`.slice(0, 12);
      const [link] = await t.db.query(
        `INSERT INTO links (user_id, kind, alias, url) VALUES ($1, 'qr', $2, 'x') RETURNING id`,
        [user.id, code],
      );
      const [qr] = await t.db.query(
        `INSERT INTO qr_codes (user_id, link_id, type, data, render_version, updated_at)
         VALUES ($1, $2, 'text', '"x"', 3, now() - interval '5 minutes') RETURNING id`,
        [user.id, link.id],
      );
      const sweep = worker.get(QrRenderSweep);
      const queue = t.app.get<Queue>(getQueueToken(QUEUE.qr));
      expect(await queue.getJob(`qr-${qr.id}-v3`)).toBeUndefined();
      // (other suites' codes may be swept too: count at least this one)
      expect(await sweep.sweep()).toBeGreaterThanOrEqual(1);
      const job = await queue.getJob(`qr-${qr.id}-v3`);
      expect(job?.data).toEqual({ qrId: qr.id, version: 3 });
      await sweep.sweep(); // its job is queued, running or done: not added twice
      await settled(qr.id);
      expect((await queue.getJob(`qr-${qr.id}-v3`))?.timestamp).toBe(job?.timestamp);
      expect((await decode((await image(code)).body)).text).toBe(`http://short.test/q/${code}`);
    });

    it('delete removes the image files', async () => {
      const { id, code } = await create({ type: 'text', data: 'x' });
      await settled(id);
      const files = ['png', 'svg'].map((f) => join(STORAGE(), 'qr', `${code}.${f}`));
      expect(files.map((f) => existsSync(f))).toEqual([true, true]);
      await t.http().delete(`/api/qr/${id}/delete`).set(user.auth).expect(200);
      await eventually(async () => files.every((f) => !existsSync(f)));
      expect((await image(code)).status).toBe(404);
    });

    it("deleting a user removes their QR codes' image files too", async () => {
      const admin = await createUser(t, { admin: true });
      const owner = await createUser(t);
      const res = await t
        .http()
        .post('/api/qr/add')
        .set(owner.auth)
        .send({ type: 'text', data: 'bye' })
        .expect(200);
      const code = (res.body.link as string).split('/').pop() as string;
      await eventually(
        async () =>
          (await t.http().get(`/api/qr/${res.body.id}`).set(owner.auth)).body.details?.status ===
          'ready',
        20_000,
      );
      const files = ['png', 'svg'].map((f) => join(STORAGE(), 'qr', `${code}.${f}`));
      expect(files.map((f) => existsSync(f))).toEqual([true, true]);
      await t.http().delete(`/api/user/${owner.id}/delete`).set(admin.auth).expect(200);
      await eventually(async () => files.every((f) => !existsSync(f)));
      expect((await image(code)).status).toBe(404);
    });
  });

  describe('ALLOW_PRIVATE_FETCH=true: logos from a local HTTP server', () => {
    let t: TestApp;
    let worker: INestApplicationContext;
    let server: Server;
    let logoServer: Server;
    let base: string;
    let user: TestUser;
    const served: string[] = [];
    const { create, settled, image } = helpers(() => ({ t, server, user }));

    beforeAll(async () => {
      const blue = await sharp({
        create: { width: 120, height: 120, channels: 3, background: { r: 0, g: 0, b: 255 } },
      })
        .png()
        .toBuffer();
      const green = await sharp({
        create: { width: 120, height: 120, channels: 3, background: { r: 0, g: 200, b: 0 } },
      })
        .jpeg()
        .toBuffer();
      logoServer = createServer((req, res) => {
        served.push(req.url ?? '');
        if (req.url === '/logo.png') res.writeHead(200, { 'Content-Type': 'image/png' }).end(blue);
        else if (req.url === '/moved') res.writeHead(301, { Location: '/logo.jpg' }).end();
        else if (req.url === '/logo.jpg')
          res.writeHead(200, { 'Content-Type': 'image/jpeg' }).end(green);
        else if (req.url === '/page')
          res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html></html>');
        else res.writeHead(404).end();
      });
      await new Promise<void>((r) => logoServer.listen(0, '127.0.0.1', r));
      base = `http://127.0.0.1:${(logoServer.address() as AddressInfo).port}`;
      ({ t, worker, server } = await boot({ ALLOW_PRIVATE_FETCH: 'true' }));
    });
    beforeEach(async () => {
      user = await createUser(t);
    });
    afterAll(async () => {
      logoServer.close();
      await worker.close();
      await t.close();
    });

    it('fetches a PNG logo over HTTP and composites it; the image still decodes', async () => {
      const { id, link, code } = await create({
        type: 'link',
        data: 'https://example.com',
        logo: `${base}/logo.png`,
      });
      await settled(id);
      expect(served).toContain('/logo.png');
      const img = await decode((await image(code)).body);
      expect(img.text).toBe(link);
      expect(img.pixel(256, 256)).toEqual([0, 0, 255]);
    });

    it('follows a redirect to a JPEG logo', async () => {
      const { id, link, code } = await create({ type: 'text', data: 'x', logo: `${base}/moved` });
      await settled(id);
      const img = await decode((await image(code)).body);
      expect(img.text).toBe(link);
      const [r, g, b] = img.pixel(256, 256);
      expect(r < 20 && g > 180 && b < 20).toBe(true);
    });

    it('marks the code failed at once when the logo is not an image or is missing', async () => {
      const page = await create({ type: 'text', data: 'x', logo: `${base}/page` });
      const missing = await create({ type: 'text', data: 'x', logo: `${base}/nothing.png` });
      expect((await settled(page.id, 'failed')).reason).toBe('logo: not a PNG or JPEG image');
      expect((await settled(missing.id, 'failed')).reason).toBe('logo: the URL answered HTTP 404');
    });
  });
});

/** True when the QR queue has no waiting, delayed or active job. */
async function queueIdle(t: TestApp): Promise<boolean> {
  const counts = await t.app
    .get<Queue>(getQueueToken(QUEUE.qr))
    .getJobCounts('waiting', 'delayed', 'active', 'prioritized');
  return Object.values(counts).every((n) => n === 0);
}
