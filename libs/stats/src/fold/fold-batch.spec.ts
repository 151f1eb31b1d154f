import { collectBatch } from './fold-batch';

/** A hash as HGETALL answers it: field, value, field, value, ... */
const flat = (hashes: Array<Record<string, string>>) => hashes.map((h) => Object.entries(h).flat());

describe('collectBatch (a claimed batch summed for the fold)', () => {
  const hashes = flat([
    {
      '20261122|v|France|Direct|Firefox|Linux||desktop|fr': '2',
      '20261122|v|France|t.co|Chrome|Linux|twitter|mobile|en': '3',
      '20261123|c': '1',
      'not a field': '9',
    },
    { '20261122|v|Spain|Direct|Safari|iOS||mobile|es': '4', '20261122|re|old.example': '1' },
  ]);

  it('sums clicks per link and day, and dimension counts per label (one entry each)', () => {
    const b = collectBatch('b1', ['7', '8'], hashes, false);
    expect(b).toMatchObject({ id: 'b1', linkIds: ['7', '8'], clicks: 10, visits: [] });
    expect(b.rows).toEqual([
      { linkId: 7, day: '20261122', clicks: 5, uniques: null, sketch: null },
      { linkId: 7, day: '20261123', clicks: 1, uniques: null, sketch: null },
      { linkId: 8, day: '20261122', clicks: 4, uniques: null, sketch: null },
    ]);
    expect(b.dims).toContainEqual([7, '2026-11-22', 'co', 'France', 5]);
    expect(b.dims).toContainEqual([7, '2026-11-22', 're', 'Direct', 2]);
    expect(b.dims).toContainEqual([7, '2026-11-22', 'so', 'twitter', 3]);
    // a dimension-only field counts no click
    expect(b.dims).toContainEqual([8, '2026-11-22', 're', 'old.example', 1]);
    const keys = b.dims.map((d) => d.slice(0, 4).join('|'));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('keeps the visits per profile for a fold listener', () => {
    const { visits } = collectBatch('b1', ['7', '8'], hashes, true);
    expect(visits).toHaveLength(4);
    expect(visits[0]).toEqual({
      linkId: 7,
      day: '2026-11-22',
      count: 2,
      country: 'France',
      referrer: 'Direct',
      browser: 'Firefox',
      os: 'Linux',
      device: 'desktop',
      language: 'fr',
    });
    expect(visits[2]).toMatchObject({ linkId: 7, day: '2026-11-23', count: 1, country: null });
  });

  it('counts the hours of new profiles apart from the dimensions, and drops what is no hour', () => {
    const b = collectBatch(
      'b2',
      ['9'],
      flat([
        {
          '20261122|v|France|Direct|Firefox|Linux||desktop|fr|Paris, FR|Île-de-France, FR|news|||https://t.co/x||07':
            '2',
          '20261122|v|France|Direct|Firefox|Linux||desktop|fr|Paris, FR|Île-de-France, FR||||||07':
            '1',
          '20261122|v|France|Direct|Firefox|Linux||desktop|fr|Paris, FR|Île-de-France, FR||||||23':
            '4',
          '20261122|v|France|Direct|Firefox|Linux||desktop|fr|Paris, FR|Île-de-France, FR||||||24':
            '5',
        },
      ]),
      false,
    );
    expect(b.clicks).toBe(12);
    expect(b.hours).toEqual([
      [9, '2026-11-22 07:00', 3],
      [9, '2026-11-22 23:00', 4],
    ]);
    expect(b.dims).toContainEqual([9, '2026-11-22', 'ci', 'Paris, FR', 12]);
    expect(b.dims).toContainEqual([9, '2026-11-22', 'us', 'news', 2]);
    expect(b.dims).toContainEqual([9, '2026-11-22', 'ru', 'https://t.co/x', 2]);
    expect(b.dims.some((d) => d[2] === 'hr' || d[2] === 'um' || d[2] === 'dm')).toBe(false);
  });

  it('a busy link-day (many labels) sums each label once, past the scanned few', () => {
    // 60 profiles: 30 referrers seen twice each, every other dimension the same
    const fields: Record<string, string> = {};
    for (let i = 0; i < 60; i++)
      fields[
        `20261122|v|France|r${i % 30}.example|Firefox|Linux||desktop|fr|Paris, FR||||||x${i}|07`
      ] = String(1 + (i % 3));
    const b = collectBatch('b3', ['5'], flat([fields]), false);
    const total = Object.values(fields).reduce((a, v) => a + Number(v), 0);
    expect(b.clicks).toBe(total);
    const referrers = b.dims.filter((d) => d[2] === 're');
    expect(referrers).toHaveLength(30);
    expect(referrers.reduce((a, d) => a + d[4], 0)).toBe(total);
    expect(referrers).toContainEqual([5, '2026-11-22', 're', 'r0.example', 1 + 1]);
    expect(b.dims).toContainEqual([5, '2026-11-22', 'co', 'France', total]);
    expect(b.dims.filter((d) => d[2] === 'dm')).toHaveLength(60);
    expect(b.hours).toEqual([[5, '2026-11-22 07:00', total]]);
    const keys = b.dims.map((d) => d.slice(0, 4).join('|'));
    expect(new Set(keys).size).toBe(keys.length);
  });
});
