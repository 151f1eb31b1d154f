import { createTestApp, createUser, TestApp } from './support/app';
import { AppProcess, startBuilt } from './support/process';
import { eventually } from './support/stats';
import { Receiver, signatureValid } from './support/webhooks';

const ALLOW = { WEBHOOK_ALLOW_HOSTS: '127.0.0.1' };

/**
 * The real worker process (dist) is killed with SIGKILL while a receiver holds its delivery
 * open. After a restart the delivery is sent again (at least once), with the same X-Webhook-Id,
 * and recorded as delivered.
 */
describe('worker killed with SIGKILL mid-delivery', () => {
  let t: TestApp;
  let receiver: Receiver;
  const workers: AppProcess[] = [];

  beforeAll(async () => {
    t = await createTestApp(ALLOW);
    receiver = await Receiver.start();
  });
  afterAll(async () => {
    for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
    await receiver.close();
    await t.close();
  });

  it('delivers after the restart, with the same X-Webhook-Id', async () => {
    const u = await createUser(t);
    // the first request is held open, unanswered; later ones get a 200
    receiver.answer = (_r, n) => (n === 1 ? 'hang' : 200);
    const add = await t
      .http()
      .post('/api/webhook/add')
      .set(u.auth)
      .send({ url: receiver.url('/crash'), events: ['link.created'] });
    expect(add.status).toBe(200);
    const created = await t
      .http()
      .post('/api/url/add')
      .set(u.auth)
      .send({ url: 'https://target.example/crash' });
    expect(created.status).toBe(200);

    const first = await startBuilt('worker', { ...ALLOW, LOG_LEVEL: 'warn' });
    workers.push(first);
    await eventually(async () => receiver.on('/crash').length === 1, 20_000);
    first.child.kill('SIGKILL');
    await first.exited;
    const [before] = await t.db.query(
      `SELECT status, attempts FROM webhook_deliveries WHERE webhook_id = $1`,
      [add.body.id],
    );
    expect(before).toEqual({ status: 'pending', attempts: 0 });

    const second = await startBuilt('worker', { ...ALLOW, LOG_LEVEL: 'warn' });
    workers.push(second);
    await eventually(async () => receiver.on('/crash').length >= 2, 45_000, 200);
    const got = receiver.on('/crash');
    expect(got[1].headers['x-webhook-id']).toBe(got[0].headers['x-webhook-id']);
    expect(got[1].body.id).toBe(got[0].body.id);
    expect(got[1].raw).toBe(got[0].raw);
    expect(got[1].body.data.id).toBe(created.body.id);
    expect(signatureValid(got[1], add.body.secret)).toBe(true);
    await eventually(async () => {
      const res = await t.http().get(`/api/webhook/${add.body.id}/deliveries`).set(u.auth);
      return res.body.data.deliveries[0]?.status === 'delivered';
    }, 10_000);
    second.child.kill('SIGTERM');
    await second.exited;
  }, 90_000);
});
