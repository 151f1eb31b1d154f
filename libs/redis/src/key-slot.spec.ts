import { groupBySlot, keySlot } from './key-slot';

describe('keySlot', () => {
  it.each([
    // values of CLUSTER KEYSLOT
    ['foo', 12182],
    ['bar', 5061],
    ['somekey', 11058],
    ['{user1000}.following', 3443],
    ['{user1000}.followers', 3443],
    ['a{}b', 13694], // an empty tag: the whole key
    ['x{y}z{w}', 12222], // the first tag only
    ['é', 10180], // UTF-8 bytes
  ])('%s is in slot %i', (key, slot) => {
    expect(keySlot(key)).toBe(slot);
  });

  it('puts keys that share a tag in one group', () => {
    expect(groupBySlot(['p:{u:7}:a', 'foo', 'p:{u:7}:b', 'bar', 'foo'])).toEqual([
      ['p:{u:7}:a', 'p:{u:7}:b'],
      ['foo', 'foo'],
      ['bar'],
    ]);
  });
});
