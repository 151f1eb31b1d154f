import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { INestApplicationContext } from '@nestjs/common';

import { compileStrict, moduleBin as bin, runNode as run } from './support/compile';
import { createTestApp, createTestWorker, createUser, TestApp, TestUser } from './support/app';

const ROOT = resolve(__dirname, '..');

/** The CSV file both clients import (two rows: two new links). */
const csv = (tag: string) =>
  `url,alias,title\nhttps://example.com/${tag}/a,${tag}a,First\nhttps://example.com/${tag}/b,${tag}b,Second\n`;

/** What each workflow answers (printed as JSON by the compiled program). */
const EXPECTED = {
  link: { url: 'https://example.com/generated', clicks: 0 },
  import: { status: 'done', created: 2, failed: 0 },
  vcard: { type: 'vcard', fname: 'Ada', lname: 'Lovelace', org: 'Analytical Engines' },
};

/**
 * The workflow with the client of @hey-api/openapi-ts (its bundled fetch client): create and read
 * a link, import a CSV file (`{csv}`: the SDK sends JSON) until the worker is done, and create a
 * vCard QR code whose fname / lname / org come back, read through the discriminated `details`.
 */
const HEY_MAIN = `import { client } from './hey/client.gen';
import {
  importsControllerGet,
  importsControllerStart,
  linksControllerCreate,
  linksControllerGet,
  qrControllerCreate,
  qrControllerGet,
} from './hey/sdk.gen';

export async function main(baseUrl: string, key: string, text: string): Promise<unknown> {
  client.setConfig({ baseUrl, auth: () => \`Token \${key}\` });
  const created = await linksControllerCreate({ body: { url: 'https://example.com/generated' } });
  if (!created.data) throw new Error('url/add: ' + JSON.stringify(created.error));
  const read = await linksControllerGet({ path: { id: created.data.id } });
  if (!read.data) throw new Error('url/:id: ' + JSON.stringify(read.error));
  const link = { url: read.data.details.longurl, clicks: read.data.data.clicks };

  const started = await importsControllerStart({ body: { csv: text }, query: { source: 'csv' } });
  if (!started.data) throw new Error('import: ' + JSON.stringify(started.error));
  let progress = await importsControllerGet({ path: { id: started.data.id } });
  for (let i = 0; i < 200 && progress.data && !['done', 'failed'].includes(progress.data.data.status); i++) {
    await new Promise((r) => setTimeout(r, 100));
    progress = await importsControllerGet({ path: { id: started.data.id } });
  }
  if (!progress.data) throw new Error('import/:id: ' + JSON.stringify(progress.error));
  const { status, created: made, failed } = progress.data.data;

  const qr = await qrControllerCreate({
    body: {
      type: 'vcard',
      data: { fname: 'Ada', lname: 'Lovelace', org: 'Analytical Engines', email: 'ada@example.com' },
      name: 'card',
    },
  });
  if (!qr.data) throw new Error('qr/add: ' + JSON.stringify(qr.error));
  const got = await qrControllerGet({ path: { id: qr.data.id } });
  if (!got.data) throw new Error('qr/:id: ' + JSON.stringify(got.error));
  const details = got.data.details;
  if (details.type !== 'vcard') throw new Error('not a vcard: ' + details.type);
  const vcard = { type: details.type, fname: details.data.fname, lname: details.data.lname, org: details.data.org };
  return { link, import: { status, created: made, failed }, vcard };
}
`;

/** The same workflow with orval's fetch client (base URL from its config, key per call). */
const ORVAL_MAIN = `import {
  importsControllerGet,
  importsControllerStart,
  linksControllerCreate,
  linksControllerGet,
  qrControllerCreate,
  qrControllerGet,
} from './orval/api';

export async function main(key: string, text: string): Promise<unknown> {
  const init = { headers: { Authorization: \`Token \${key}\` } };
  const created = await linksControllerCreate({ url: 'https://example.com/generated' }, init);
  if (created.status !== 200) throw new Error('url/add: ' + JSON.stringify(created.data));
  const read = await linksControllerGet(created.data.id, init);
  if (read.status !== 200) throw new Error('url/:id: ' + JSON.stringify(read.data));
  const link = { url: read.data.details.longurl, clicks: read.data.data.clicks };

  const started = await importsControllerStart({ csv: text }, { source: 'csv' }, init);
  if (started.status !== 200) throw new Error('import: ' + JSON.stringify(started.data));
  let progress = await importsControllerGet(started.data.id, init);
  for (let i = 0; i < 200 && progress.status === 200 && !['done', 'failed'].includes(progress.data.data.status); i++) {
    await new Promise((r) => setTimeout(r, 100));
    progress = await importsControllerGet(started.data.id, init);
  }
  if (progress.status !== 200) throw new Error('import/:id: ' + JSON.stringify(progress.data));
  const { status, created: made, failed } = progress.data.data;

  const qr = await qrControllerCreate(
    {
      type: 'vcard',
      data: { fname: 'Ada', lname: 'Lovelace', org: 'Analytical Engines', email: 'ada@example.com' },
      name: 'card',
    },
    init,
  );
  if (qr.status !== 200) throw new Error('qr/add: ' + JSON.stringify(qr.data));
  const got = await qrControllerGet(qr.data.id, init);
  if (got.status !== 200) throw new Error('qr/:id: ' + JSON.stringify(got.data));
  const details = got.data.details;
  if (details.type !== 'vcard') throw new Error('not a vcard: ' + details.type);
  const vcard = { type: details.type, fname: details.data.fname, lname: details.data.lname, org: details.data.org };
  return { link, import: { status, created: made, failed }, vcard };
}
`;

const RUNNER = `import { main as hey } from './hey-main';
import { main as orval } from './orval-main';

const [which, base, key, text] = process.argv.slice(2);
(which === 'hey' ? hey(base, key, text) : orval(key, text)).then(
  (out) => console.log(JSON.stringify(out)),
  (err) => { console.error(err); process.exit(1); },
);
`;

/**
 * Clients generated from /docs-json by @hey-api/openapi-ts and orval, as they come out of the
 * generators (no hand edits, offline), compile under strict tsc and run a workflow against the
 * running api and worker: a link, a CSV import that completes, a vCard QR code whose fields come
 * back (the `details` variants are told apart by `type`).
 */
describe('generated clients (@hey-api/openapi-ts, orval)', () => {
  let t: TestApp;
  let worker: INestApplicationContext;
  let user: TestUser;
  let work: string;
  let base: string;

  beforeAll(async () => {
    t = await createTestApp();
    worker = await createTestWorker();
    user = await createUser(t);
    await new Promise<void>((done) => t.server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(t.server.address() as AddressInfo).port}`;
    work = mkdtempSync(join(tmpdir(), 'lm-generated-'));
    const doc = (await t.http().get('/docs-json').expect(200)).body;
    writeFileSync(join(work, 'openapi.json'), JSON.stringify(doc));
    symlinkSync(join(ROOT, 'node_modules'), join(work, 'node_modules'), 'dir');
  });
  afterAll(async () => {
    rmSync(work, { recursive: true, force: true });
    await worker.close();
    await t.close();
  });

  it('the document declares a CSV import as text and QR variants by type', async () => {
    const doc = (await t.http().get('/docs-json').expect(200)).body;
    const body = doc.paths['/api/import'].post.requestBody.content;
    expect(body['text/csv'].schema.type).toBe('string');
    expect(body['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ImportLinksDto',
    });
    const qrBody = doc.paths['/api/qr/add'].post.requestBody.content['application/json'].schema;
    expect(qrBody.discriminator.propertyName).toBe('type');
    expect(doc.components.schemas.CreateQrVcardDto.properties.type.enum).toEqual(['vcard']);
    expect(doc.components.schemas.QrReadView.properties.details.discriminator).toEqual(
      expect.objectContaining({ propertyName: 'type' }),
    );
  });

  it('compile with strict tsc, untouched, and run the workflow against the api', async () => {
    const env = { ...process.env, NO_UPDATE_NOTIFIER: '1', npm_config_offline: 'true' };
    writeFileSync(
      join(work, 'orval.config.js'),
      `module.exports = { api: { input: './openapi.json', output: { target: './orval/api.ts', client: 'fetch', baseUrl: ${JSON.stringify(base)} } } };\n`,
    );
    await Promise.all([
      run(
        process.execPath,
        [bin('@hey-api/openapi-ts/bin/run.js'), '-i', 'openapi.json', '-o', 'hey'],
        { cwd: work, env },
      ),
      run(process.execPath, [bin('orval/dist/bin/orval.js'), '--config', 'orval.config.js'], {
        cwd: work,
        env,
      }),
    ]);
    // nullable references and unions render as `X | null`, never with an empty member
    const orvalSource = readFileSync(join(work, 'orval', 'api.ts'), 'utf8');
    expect(orvalSource.match(/^export type .*\| +\|.*$/gm) ?? []).toEqual([]);
    expect(orvalSource).toMatch(/export type PlanResponsePrices = PlanPricesResponse \| null;/);

    writeFileSync(join(work, 'hey-main.ts'), HEY_MAIN);
    writeFileSync(join(work, 'orval-main.ts'), ORVAL_MAIN);
    writeFileSync(join(work, 'run.ts'), RUNNER);
    // one tsc run for both clients (the generated files included: no hand edits, no casts)
    expect(await compileStrict(work, ['run.ts'])).toBe('');

    for (const [which, tag] of [
      ['hey', `hy${Date.now()}`],
      ['orval', `or${Date.now()}`],
    ]) {
      const out = await run(
        process.execPath,
        [join(work, 'out', 'run.js'), which, base, user.apiKey, csv(tag)],
        { cwd: work },
      ).catch((err: { stdout?: string; stderr?: string }) => err);
      expect([which, out.stderr ?? '']).toEqual([which, '']);
      expect([which, JSON.parse(out.stdout ?? 'null')]).toEqual([which, EXPECTED]);
      const [made] = await t.db.query(
        `SELECT count(*)::int AS n FROM links WHERE user_id = $1 AND alias IN ($2, $3)`,
        [user.id, `${tag}a`, `${tag}b`],
      );
      expect([which, made.n]).toEqual([which, 2]);
    }
  }, 180_000);
});
