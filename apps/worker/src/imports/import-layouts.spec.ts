import { columnKey, importRow } from './import-layouts';

describe('import layouts', () => {
  it('normalises column names', () => {
    expect(columnKey(' Long URL ')).toBe('longurl');
    expect(columnKey('long_url')).toBe('longurl');
    expect(columnKey('expire-in')).toBe('expirein');
  });

  it('maps each layout to url/add fields', () => {
    expect(
      importRow(
        'csv',
        { url: 'https://a.example', alias: 'abc', title: '', expiry: '2099-01-01 00:00:00' },
        2,
      ),
    ).toEqual({ line: 2, url: 'https://a.example', alias: 'abc', expiry: '2099-01-01 00:00:00' });
    expect(
      importRow(
        'bitly',
        { link: 'https://bit.ly/3xYz', long_url: 'https://b.example', title: 'B' },
        3,
      ),
    ).toEqual({ line: 3, url: 'https://b.example', alias: '3xYz', title: 'B' });
    expect(
      importRow(
        'bitly',
        {
          link: 'https://bit.ly/3xYz',
          custom_bitlinks: 'https://brand.example/spring',
          long_url: 'https://b.example',
        },
        3,
      ).alias,
    ).toBe('spring');
    expect(
      importRow(
        'shlink',
        {
          createdAt: '2024-01-01T00:00:00+00:00',
          shortUrl: 'https://s.test/abc12',
          longUrl: 'https://c.example',
          title: 'C',
        },
        4,
      ),
    ).toEqual({ line: 4, url: 'https://c.example', alias: 'abc12', title: 'C' });
    expect(
      importRow('shlink', { 'Long URL': 'https://c.example', 'Short code': 'xyz' }, 5),
    ).toEqual({
      line: 5,
      url: 'https://c.example',
      alias: 'xyz',
    });
    expect(
      importRow('yourls', { keyword: 'ozh', url: 'https://d.example', title: 'D', clicks: '3' }, 6),
    ).toEqual({
      line: 6,
      url: 'https://d.example',
      alias: 'ozh',
      title: 'D',
    });
    expect(
      importRow(
        'kutt',
        {
          address: 'k1',
          target: 'https://e.example',
          description: 'E',
          expire_in: '2099-05-01T10:00:00.000Z',
          visit_count: 4,
        },
        7,
      ),
    ).toEqual({
      line: 7,
      url: 'https://e.example',
      alias: 'k1',
      description: 'E',
      expiry: '2099-05-01 10:00:00',
    });
  });
});
