import { addMember } from './support/access';
import { call, TestUser, useSuite } from './support/app';
import { insertLink, insertQr, uniq } from './support/resources';

/**
 * Tenant isolation, table-driven: one user tries every read, update, assign and delete on
 * another user's domains, campaigns, channels, pixels, links, QR codes, bio pages, overlays and
 * splash pages. Every attempt is a
 * 404 naming the resource (never "Route not found": the route exists) and nothing changes; the
 * attacker's lists never show the owner's rows; admin routes refuse a user key with 403.
 * Workspaces: an editor and an admin of the attacker's workspace (A) try the same on the owner's
 * ids (B): acting in A, the same 404 naming the resource (an editor's domain changes stop at the
 * role, 403); naming B in `X-Workspace`, 404 workspace not found; nothing changes either way.
 */
describe('tenant isolation', () => {
  const { t, owner, attacker, editor, admin } = useSuite({
    owner: {},
    attacker: {},
    editor: {},
    admin: {},
  });
  const ids: Record<string, number> = {};
  const mine: Record<string, number> = {};

  /** Every table an owner's rows live in, dumped for before/after comparison. */
  const snapshot = async () => {
    const tables = [
      'domains',
      'campaigns',
      'channels',
      'channel_items',
      'pixels',
      'links',
      'qr_codes',
      'bio_pages',
      'overlays',
      'splash_pages',
    ];
    const out: Record<string, unknown> = {};
    for (const tbl of tables) {
      out[tbl] = await t.db.query(`SELECT * FROM ${tbl} WHERE user_id = $1 ORDER BY 1`, [owner.id]);
    }
    out.link_pixels = await t.db.query(
      `SELECT lp.* FROM link_pixels lp JOIN links l ON l.id = lp.link_id WHERE l.user_id = $1 ORDER BY 1, 2`,
      [owner.id],
    );
    out.users = await t.db.query(`SELECT id, email, plan_id, expires FROM users WHERE id = $1`, [
      owner.id,
    ]);
    return out;
  };

  beforeAll(async () => {
    const add = async (user: TestUser, path: string, body: object) => {
      const res = await t.http().post(path).set(user.auth).send(body).expect(200);
      return res.body.id as number;
    };
    for (const [user, bag] of [
      [owner, ids],
      [attacker, mine],
    ] as const) {
      bag.domain = await add(user, '/api/domain/add', {
        domain: `https://${uniq('iso')}.example.com`,
      });
      bag.campaign = await add(user, '/api/campaign/add', { name: 'c', slug: uniq('s') });
      bag.channel = await add(user, '/api/channel/add', { name: 'ch' });
      bag.pixel = await add(user, '/api/pixel/add', {
        type: 'vendor01pixel',
        name: 'p',
        tag: 'T-1',
      });
      bag.link = (await insertLink(t, user.id)).id;
      bag.bio = await add(user, '/api/bio/add', {
        name: 'bio',
        links: [{ title: 'l', url: 'https://bio-target.example/' }],
      });
      bag.overlay = await add(user, '/api/overlay/add', { type: 'message', name: 'o' });
      bag.splash = await add(user, '/api/splash/add', { name: 's' });
      bag.qr = (await insertQr(t, user.id)).id;
    }
    // an editor and an admin of the attacker's workspace (A); not members of the owner's (B)
    await addMember(t, attacker.id, editor.id, 'editor');
    await addMember(t, attacker.id, admin.id, 'admin');
    await t
      .http()
      .post(`/api/campaign/${ids.campaign}/assign/${ids.link}`)
      .set(owner.auth)
      .expect(200);
    await t
      .http()
      .post(`/api/channel/${ids.channel}/assign/links/${ids.link}`)
      .set(owner.auth)
      .expect(200);
  });

  type Attempt = [method: 'get' | 'post' | 'put' | 'delete', path: () => string, body?: object];
  const attempts: Record<string, Attempt[]> = {
    Domain: [
      ['put', () => `/api/domain/${ids.domain}/update`, { redirectroot: 'https://evil.example' }],
      ['delete', () => `/api/domain/${ids.domain}/delete`],
    ],
    Campaign: [
      ['put', () => `/api/campaign/${ids.campaign}/update`, { name: 'pwned' }],
      ['delete', () => `/api/campaign/${ids.campaign}/delete`],
      ['post', () => `/api/campaign/${ids.campaign}/assign/${mine.link}`],
      ['get', () => `/api/stats/reach?campaign=${ids.campaign}`],
    ],
    'Campaign link': [['post', () => `/api/campaign/${mine.campaign}/assign/${ids.link}`]],
    Channel: [
      ['get', () => `/api/channel/${ids.channel}`],
      ['put', () => `/api/channel/${ids.channel}/update`, { name: 'pwned' }],
      ['delete', () => `/api/channel/${ids.channel}/delete`],
      ['post', () => `/api/channel/${ids.channel}/assign/links/${mine.link}`],
      ['get', () => `/api/stats/reach?channel=${ids.channel}`],
    ],
    'Channel item': [
      ['post', () => `/api/channel/${mine.channel}/assign/links/${ids.link}`],
      ['post', () => `/api/channel/${mine.channel}/assign/bio/${ids.bio}`],
      ['post', () => `/api/channel/${mine.channel}/assign/qr/${ids.qr}`],
    ],
    Pixel: [
      ['put', () => `/api/pixel/${ids.pixel}/update`, { tag: 'pwned' }],
      ['delete', () => `/api/pixel/${ids.pixel}/delete`],
    ],
    Link: [
      ['get', () => `/api/url/${ids.link}`],
      ['get', () => `/api/url/${ids.link}/health`],
      ['put', () => `/api/url/${ids.link}/update`, { url: 'https://evil.example/' }],
      ['delete', () => `/api/url/${ids.link}/delete`],
      ['get', () => `/api/url/${ids.link}/live`],
      ['get', () => `/api/stats/reach?links=${mine.link},${ids.link}`],
    ],
    'Bio page': [
      ['get', () => `/api/bio/${ids.bio}`],
      ['put', () => `/api/bio/${ids.bio}/update`, { title: 'pwned' }],
      ['delete', () => `/api/bio/${ids.bio}/delete`],
    ],
    Overlay: [
      ['get', () => `/api/overlay/${ids.overlay}`],
      ['put', () => `/api/overlay/${ids.overlay}/update`, { message: 'pwned' }],
      ['delete', () => `/api/overlay/${ids.overlay}/delete`],
      [
        'post',
        () => '/api/url/add',
        {
          url: 'https://evil.example/',
          // read when the request is sent (the ids exist only once beforeAll ran)
          get type() {
            return ids.overlay;
          },
        },
      ],
    ],
    'Splash page': [
      ['get', () => `/api/splash/${ids.splash}`],
      ['put', () => `/api/splash/${ids.splash}/update`, { title: 'pwned' }],
      ['delete', () => `/api/splash/${ids.splash}/delete`],
    ],
    'QR code': [
      ['get', () => `/api/qr/${ids.qr}`],
      ['put', () => `/api/qr/${ids.qr}/update`, { data: 'https://evil.example/' }],
      ['delete', () => `/api/qr/${ids.qr}/delete`],
    ],
  };

  for (const [resource, list] of Object.entries(attempts)) {
    describe(resource, () => {
      for (const [method, path, body] of list) {
        it(`${method.toUpperCase()} on the other user's ${resource.toLowerCase()} is a 404 and changes nothing`, async () => {
          const before = await snapshot();
          let req = t.http()[method](path()).set(attacker.auth);
          if (body) req = req.send(body);
          const res = await req;
          expect({ status: res.status, body: res.body }).toEqual({
            status: 404,
            body: { error: 1, message: expect.stringMatching(/not found$/) },
          });
          expect(res.body.message).not.toBe('Route not found');
          expect(await snapshot()).toEqual(before);
        });
      }
    });
  }

  describe.each(['editor', 'admin'] as const)(
    "a member of the attacker's workspace (%s, X-Workspace)",
    (role) => {
      const attemptsAs =
        (workspace: () => number, expected: (resource: string) => [number, RegExp]) => async () => {
          const member = role === 'editor' ? editor : admin;
          const before = await snapshot();
          const wrong: string[] = [];
          for (const [resource, list] of Object.entries(attempts)) {
            const [status, message] = expected(resource);
            for (const [method, path, body] of list) {
              let req = call(
                t,
                method,
              )(path())
                .set(member.auth)
                .set('X-Workspace', String(workspace()));
              if (body) req = req.send(body);
              const res = await req;
              if (res.status !== status || !message.test(String(res.body.message)))
                wrong.push(
                  `${resource}: ${method.toUpperCase()} ${path()} → ${res.status} ${res.body.message}`,
                );
            }
          }
          expect(wrong).toEqual([]);
          expect(await snapshot()).toEqual(before);
        };

      it(
        "acting in A, every attempt on B's ids is a 404 naming the resource (an editor's domain changes: 403), and nothing changes",
        attemptsAs(
          () => attacker.id,
          (resource) =>
            role === 'editor' && resource === 'Domain'
              ? [403, /^This needs the role admin in this workspace; yours is editor$/]
              : [404, /^(?!Workspace)[\w ]+ not found$/],
        ),
      );

      it(
        'naming B in X-Workspace, every attempt is a 404 workspace not found, and nothing changes',
        attemptsAs(
          () => owner.id,
          () => [404, /^Workspace not found \(X-Workspace\)$/],
        ),
      );

      it("acting in A, the lists show A's rows and never B's", async () => {
        const lists: Array<[string, string, number, number]> = [
          ['/api/domains', 'domains', ids.domain, mine.domain],
          ['/api/campaigns', 'campaigns', ids.campaign, mine.campaign],
          ['/api/channels', 'channels', ids.channel, mine.channel],
          ['/api/pixels', 'pixels', ids.pixel, mine.pixel],
          ['/api/urls', 'urls', ids.link, mine.link],
          ['/api/qr', 'qrs', ids.qr, mine.qr],
          ['/api/bio', 'bios', ids.bio, mine.bio],
          ['/api/overlay', 'cta', ids.overlay, mine.overlay],
          ['/api/splash', 'splash', ids.splash, mine.splash],
        ];
        for (const [path, key, theirs, ours] of lists) {
          const res = await t
            .http()
            .get(`${path}?limit=100`)
            .set((role === 'editor' ? editor : admin).auth)
            .set('X-Workspace', String(attacker.id))
            .expect(200);
          const seen = (res.body.data[key] as Array<{ id: number }>).map((x) => x.id);
          expect([path, seen.includes(theirs), seen.includes(ours)]).toEqual([path, false, true]);
        }
      });
    },
  );

  it("the attacker's lists never show the owner's rows", async () => {
    const lists: Array<[string, string, number]> = [
      ['/api/domains', 'domains', ids.domain],
      ['/api/campaigns', 'campaigns', ids.campaign],
      ['/api/channels', 'channels', ids.channel],
      ['/api/pixels', 'pixels', ids.pixel],
      ['/api/urls', 'urls', ids.link],
      ['/api/qr', 'qrs', ids.qr],
      ['/api/bio', 'bios', ids.bio],
      ['/api/overlay', 'cta', ids.overlay],
      ['/api/splash', 'splash', ids.splash],
    ];
    for (const [path, key, id] of lists) {
      const res = await t.http().get(`${path}?limit=100`).set(attacker.auth).expect(200);
      const seen = (res.body.data[key] as Array<{ id: number }>).map((x) => x.id);
      expect([path, seen.includes(id)]).toEqual([path, false]);
      expect([path, res.body.data.result]).toEqual([path, seen.length]);
    }
  });

  it('admin routes refuse a user key with 403 and change nothing', async () => {
    const before = await snapshot();
    const admin: Attempt[] = [
      ['get', () => '/api/plans'],
      ['put', () => `/api/plan/1/user/${attacker.id}`, { type: 'lifetime' }],
      ['get', () => '/api/users'],
      ['get', () => `/api/user/${owner.id}`],
      [
        'post',
        () => '/api/user/add',
        { username: uniq('u'), email: `${uniq('e')}@example.com`, password: 'secret1' },
      ],
      ['delete', () => `/api/user/${owner.id}/delete`],
      ['get', () => `/api/user/login/${owner.id}`],
    ];
    for (const [method, path, body] of admin) {
      let req = t.http()[method](path()).set(attacker.auth);
      if (body) req = req.send(body);
      const res = await req;
      expect([path(), res.status, res.body.error]).toEqual([path(), 403, 1]);
    }
    expect(await snapshot()).toEqual(before);
  });
});
