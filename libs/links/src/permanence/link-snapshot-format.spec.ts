import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  compactLink,
  fromRow,
  ResolvedLink,
  ResolveLinkRow,
  toCached,
} from '../read-model/resolved-link';
import {
  readSnapshot,
  SnapshotError,
  SnapshotFileWriter,
  snapshotKey,
  snapshotPath,
} from './link-snapshot-format';

const plain = fromRow({
  id: 7,
  user_id: 3,
  kind: 'link',
  alias: 'abc1234',
  url: 'https://example.com/landing',
  type: 'direct',
  title: 'Landing',
  pixels: [],
} as Partial<ResolveLinkRow> as ResolveLinkRow);

const targeted: ResolvedLink = {
  ...plain,
  id: 8,
  alias: 'tgt_01',
  url: 'https://example.com/é?x=1',
  title: 'tab\there, line\nthere',
  expiresAt: 1_900_000_000_000,
  expirationRedirect: 'https://example.com/expired',
  geoTargets: [{ location: 'FR', link: 'https://example.fr/' }],
  languageTargets: [{ language: 'de', link: 'https://example.de/' }],
  parameters: [{ name: 'utm_source', value: 'snap' }],
  clickLimit: 5,
  forwardQuery: true,
  disabled: true,
};

describe('link snapshot format', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lm-snap-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const key = snapshotKey('a-secret-of-thirty-two-characters!!');

  async function write(path = snapshotPath(dir)): Promise<Buffer> {
    const w = await SnapshotFileWriter.open(path, key, 1_700_000_000_000);
    w.host('brand.example', {
      id: 4,
      redirectRoot: 'https://brand.example/home',
      redirect404: '',
      verified: true,
      rootBlocked: false,
      notFoundBlocked: true,
    });
    w.blocklist(['blocked.example', 'keyword:casino', 'bad\nentry']);
    w.link(plain.alias, compactLink(plain), 0);
    w.link(targeted.alias, compactLink(targeted), 3);
    w.link('bad\talias', compactLink(plain), 0);
    w.link('ab', compactLink(plain), 0);
    await w.commit();
    return readFileSync(path);
  }

  it('compactLink leaves out the fields at their absent value; toCached gives them back', () => {
    const compact = compactLink(plain);
    expect(Object.keys(compact)).toEqual(['id', 'userId', 'kind', 'alias', 'url', 'type', 'title']);
    for (const link of [plain, targeted])
      expect(toCached(JSON.parse(JSON.stringify(compactLink(link))))).toEqual(toCached(link));
  });

  it('round-trips links and hosts, signed, renamed into place (no temporary file left)', async () => {
    const data = await write();
    expect(readdirSync(join(dir, 'snapshot'))).toEqual(['links.snapshot']);
    expect(data.toString('utf8', 0, 7)).toBe('LMSNAP ');
    const index = await readSnapshot(data, key);
    expect(index.createdAt).toBe(1_700_000_000_000);
    expect(index.links).toBe(2); // the alias with a tab and the one too short were skipped
    expect(index.blocklist).toEqual(['blocked.example', 'keyword:casino']);
    expect(index.link('nope')).toBeNull();
    const a = index.link(plain.alias);
    expect(a).toEqual({ link: compactLink(plain), clicks: 0 });
    expect(toCached(a!.link)).toEqual(toCached(plain));
    const b = index.link(targeted.alias);
    expect(b!.clicks).toBe(3);
    expect(toCached(b!.link)).toEqual(toCached(targeted));
    expect(index.hosts.get('brand.example')).toEqual({
      id: 4,
      redirectRoot: 'https://brand.example/home',
      redirect404: '',
      verified: true,
      rootBlocked: false,
      notFoundBlocked: true,
    });
  });

  it('refuses a file with any one byte changed, another key, or cut short', async () => {
    const data = await write();
    const text = data.toString('latin1');
    for (const at of [3, text.indexOf('landing'), text.indexOf('brand'), text.indexOf('\nE') + 2]) {
      const tampered = Buffer.from(data);
      tampered[at] = tampered[at] === 0x41 ? 0x42 : 0x41;
      await expect(readSnapshot(tampered, key)).rejects.toThrow(new SnapshotError('bad signature'));
    }
    await expect(
      readSnapshot(data, snapshotKey('another-secret-of-32-characters!!')),
    ).rejects.toThrow(/bad signature/);
    await expect(readSnapshot(data.subarray(0, data.length - 10), key)).rejects.toThrow(
      SnapshotError,
    );
    await expect(readSnapshot(data.subarray(0, 100), key)).rejects.toThrow(SnapshotError);
    await expect(readSnapshot(Buffer.alloc(0), key)).rejects.toThrow(SnapshotError);
  });

  it('signs with a key derived from the secret, never the secret itself', () => {
    const secret = 'a-secret-of-thirty-two-characters!!';
    expect(snapshotKey(secret)).toEqual(key);
    expect(snapshotKey(secret).equals(Buffer.from(secret))).toBe(false);
    expect(snapshotKey(`${secret}x`).equals(key)).toBe(false);
  });

  it('an aborted write leaves the previous snapshot in place', async () => {
    const data = await write();
    const w = await SnapshotFileWriter.open(snapshotPath(dir), key, 1);
    w.link('other1', compactLink(plain), 0);
    await w.flush(true);
    await w.abort();
    expect(readdirSync(join(dir, 'snapshot'))).toEqual(['links.snapshot']);
    expect(readFileSync(snapshotPath(dir)).equals(data)).toBe(true);
  });
});
