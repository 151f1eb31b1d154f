import { NextFunction, Request, Response } from 'express';
import request from 'supertest';

import { ApiHttpAdapter } from './api-http-adapter';

/** A handler that answers its name (and what ran before it), or passes the request on. */
function answer(name: string, passOn = false) {
  return (req: Request, res: Response, next: NextFunction) => {
    const seen = ((req as { seen?: string[] }).seen ??= []);
    seen.push(name);
    if (passOn) return next();
    res.json({ by: name, seen, params: { ...req.params } });
  };
}

/** Middleware that notes it ran (the rate limit, the JSON body in the api). */
const note = (name: string) => (req: Request, _res: Response, next: NextFunction) => {
  ((req as { seen?: string[] }).seen ??= []).push(name);
  next();
};

/**
 * The route table answers exactly as Express's router would: the first route registered that
 * matches, the middleware in front of it run first, a handler's next() followed.
 */
describe('ApiHttpAdapter route table', () => {
  const adapter = new ApiHttpAdapter();
  const app = adapter.getInstance();
  app.use(note('cors'));
  adapter.get('/docs', answer('docs'));
  app.use(note('rate-limit'));
  adapter.post('/api/url/add', answer('add'));
  adapter.get('/api/url/:id', answer('read'));
  // shadowed by /api/url/:id, registered before it: Express answers with that one
  adapter.get('/api/url/new', answer('never'));
  adapter.get('/api/pass', answer('first', true));
  adapter.get('/api/pass', answer('second'));
  app.use(note('late'));
  adapter.post('/api/late', answer('late-route'));

  it('finds a literal route in any case, one trailing slash and a query string, after the middleware in front', async () => {
    for (const path of ['/api/url/add', '/API/Url/add/', '/api/url/add?x=1']) {
      const res = await request(app).post(path).expect(200);
      expect(res.body).toEqual({ by: 'add', seen: ['cors', 'rate-limit', 'add'], params: {} });
    }
    await request(app).post('/api/url/add//').expect(404);
    await request(app).post('/api/url/%61dd').expect(404);
  });

  it('leaves a literal route to the earlier route with a parameter that matches it', async () => {
    const res = await request(app).get('/api/url/new').expect(200);
    expect(res.body).toMatchObject({ by: 'read', params: { id: 'new' } });
  });

  it('a handler that passes the request on is followed by the next route, and not run again', async () => {
    const res = await request(app).get('/api/pass').expect(200);
    expect(res.body.seen).toEqual(['cors', 'rate-limit', 'first', 'second']);
  });

  it('runs middleware registered between routes before the routes after it', async () => {
    const res = await request(app).post('/api/late').expect(200);
    expect(res.body.seen).toEqual(['cors', 'rate-limit', 'late', 'late-route']);
    // a route registered before that middleware is answered without it
    expect((await request(app).get('/docs').expect(200)).body.seen).toEqual(['cors', 'docs']);
  });

  it('leaves HEAD, OPTIONS and other methods to Express', async () => {
    await request(app).head('/docs').expect(200);
    const options = await request(app).options('/api/url/add').expect(200);
    expect(options.headers.allow).toBe('GET, HEAD, POST'); // /api/url/:id matches too
    await request(app).get('/api/url/add').expect(200); // GET /api/url/:id
    await request(app).put('/api/url/add').expect(404);
  });
});
