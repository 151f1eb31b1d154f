import { MemoMap } from './memo-map';

describe('MemoMap', () => {
  it('answers what was set, undefined for what was not', () => {
    const m = new MemoMap<string, number>(10);
    m.set('a', 1);
    expect(m.get('a')).toBe(1);
    expect(m.get('b')).toBeUndefined();
  });

  it('never holds more than max entries', () => {
    const m = new MemoMap<number, number>(100);
    for (let i = 0; i < 10_000; i++) {
      m.set(i, i);
      expect(m.size).toBeLessThanOrEqual(100);
    }
    // the newest half is always held
    for (let i = 10_000 - 50; i < 10_000; i++) expect(m.get(i)).toBe(i);
  });

  it('keeps entries that are read, forgets those that are not', () => {
    const m = new MemoMap<number, string>(4);
    m.set(1, 'one');
    m.set(2, 'two'); // young: {1, 2}
    m.set(3, 'three'); // old: {1, 2}, young: {3}
    expect(m.get(1)).toBe('one'); // back to young: {3, 1}
    m.set(4, 'four'); // old: {3, 1}, young: {4} (2 dropped)
    expect(m.get(2)).toBeUndefined();
    expect(m.get(1)).toBe('one');
    expect(m.get(3)).toBe('three');
    expect(m.get(4)).toBe('four');
  });

  it('overwrites in place, deletes and clears', () => {
    const m = new MemoMap<string, number>(4);
    m.set('a', 1);
    m.set('a', 2);
    expect(m.get('a')).toBe(2);
    expect(m.size).toBe(1);
    m.set('b', 3);
    m.set('c', 4); // 'a', 'b' to the old generation
    m.delete('a');
    expect(m.get('a')).toBeUndefined();
    m.clear();
    expect(m.size).toBe(0);
    expect(m.get('c')).toBeUndefined();
  });

  it('refuses a max below 2', () => {
    expect(() => new MemoMap(1)).toThrow(/max/);
  });
});
